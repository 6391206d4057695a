package trainingcluster

import (
	"cloud.google.com/go/compute/apiv1/computepb"

	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// drift is what the controller runs that no resource declared: the files its agent reports
// changed out of band, and a reported config hash that is not the hash of the configuration in
// its metadata. A rejected configuration is not drift here (the apply that wrote it failed with
// slurmctld's words), nor is a pass in progress.
func (o observed) drift() []string {
	var out []string
	if o.ctl == nil {
		return out
	}
	if _, paths, ok := clusterconfig.ParseDrift(o.report.Attrs[clusterconfig.GuestAttrConfigDrift]); ok {
		for _, p := range paths {
			out = append(out, p+" changed on the controller out of band")
		}
	}
	if o.cluster == nil || o.report.Phase != clusterconfig.PhaseReady || o.report.ConfigHash == "" {
		return out
	}
	want, err := clusterconfig.AppliedHash(*o.cluster, metadataMap(o.ctl.GetMetadata()))
	if err != nil {
		return out
	}
	if _, rejected := o.report.Rejected(want); want != o.report.ConfigHash && !rejected {
		out = append(out, fmt.Sprintf("config-hash: the controller reports %s applied; its metadata asks for %s",
			tfutil.ShortHash(o.report.ConfigHash), tfutil.ShortHash(want)))
	}
	return out
}

// hashes are the cluster's own config hash and node config hash from the configuration in the
// controller's metadata; empty when there is none.
func (o observed) hashes() (own, node string) {
	if o.cluster == nil {
		return "", ""
	}
	own, _ = clusterconfig.OwnHash(*o.cluster)
	node, _ = clusterconfig.NodeConfigHash(*o.cluster)
	return own, node
}

// setHashes fills config_hash, node_config_hash and config_drift from what was observed.
func setHashes(ctx context.Context, m *model, o observed, drift []string, diags *diag.Diagnostics) {
	own, node := o.hashes()
	m.ConfigHash, m.NodeConfigHash = types.StringValue(own), types.StringValue(node)
	if drift == nil {
		drift = []string{}
	}
	var d diag.Diagnostics
	m.ConfigDrift, d = types.ListValueFrom(ctx, types.StringType, drift)
	diags.Append(d...)
}

// rewriteGeneration is the Rewrite the apply writes: the controller's current one, raised when
// its agent reports drift, so that the agent puts the files back (clusterconfig.Cluster.Rewrite)
// and the wait, which wants no drift, ends once it did.
func (a *applier) rewriteGeneration(ctx context.Context, ctl *computepb.Instance) (int, error) {
	gen := 0
	if v, ok := metadataMap(ctl.GetMetadata())[clusterconfig.ClusterKey]; ok {
		if c, err := clusterconfig.DecodeCluster([]byte(v)); err == nil {
			gen = c.Rewrite
		}
	}
	r, err := a.readReport(ctx, ctl.GetName())
	if err != nil {
		return 0, fmt.Errorf("reading the guest attributes of VM %s: %w", ctl.GetName(), err)
	}
	if drifting(r) {
		gen++
	}
	return gen, nil
}

// drifting reports whether the controller reports files changed out of band.
func drifting(r tfutil.Report) bool {
	_, _, ok := clusterconfig.ParseDrift(r.Attrs[clusterconfig.GuestAttrConfigDrift])
	return ok
}
