package nodepartition

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// nodes_failed is the partition's dynamic nodes whose resume failed, as the controller reads them
// from Slurm (guest attribute failed-<partition>): the cluster agent's ResumeProgram sets such a
// node DOWN with "resume failed: <the Compute API's error>" the moment its VM cannot be created,
// so its jobs are requeued at once, and the node stays listed until Slurm returns it to service.

var nodeFailureAttrTypes = map[string]attr.Type{"name": types.StringType, "reason": types.StringType, "time": types.StringType}

var nodeFailureType = types.ObjectType{AttrTypes: nodeFailureAttrTypes}

func nodesFailedAttribute() schema.Attribute {
	return schema.ListNestedAttribute{
		Computed: true,
		MarkdownDescription: "Dynamic nodes whose power-up failed and that Slurm holds `DOWN` for it, as of the last refresh: " +
			"when the cluster agent's ResumeProgram cannot create a node's VM (a stockout, a quota, a bad image) it sets " +
			"the node `DOWN` at once with reason `resume failed: <the Compute API's error>`, so Slurm requeues the jobs " +
			"waiting for it instead of holding them until `resume_timeout`; a node whose VM was created but did not " +
			"register within `resume_timeout` is listed with Slurm's reason `ResumeTimeout reached`. A failed node stays " +
			"`DOWN` (Slurm schedules nothing on it) and leaves the list once it is returned to service: by the controller " +
			"`slurm.resume_retry_after` seconds after Slurm powered it down, or by an administrator " +
			"(`scontrol update nodename=<name> state=resume`).",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name":   schema.StringAttribute{Computed: true, MarkdownDescription: "The Slurm node (and VM) name."},
			"reason": schema.StringAttribute{Computed: true, MarkdownDescription: "Slurm's reason: `resume failed: ` and the cloud's error, or `ResumeTimeout reached`."},
			"time":   schema.StringAttribute{Computed: true, MarkdownDescription: "When Slurm recorded it (RFC 3339, UTC)."},
		}},
	}
}

// readFailures reads the controller's failed-<partition> report: one getGuestAttributes call,
// made only for a partition with dynamic nodes (static nodes fail the apply that creates them).
func readFailures(ctx context.Context, cl *gcp.Clients, ref cc.ClusterID, name string) ([]cc.NodeFailure, error) {
	r, err := tfutil.ReadReport(ctx, cl, tfutil.ControllerVM(ref))
	if err != nil {
		return nil, err
	}
	f, err := cc.ParseFailures(r.Attrs[cc.FailedAttr(name)])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref.Controller(), err)
	}
	return f, nil
}

// nodesFailedValue is the attribute's value: an empty list when there are none.
func nodesFailedValue(failed []cc.NodeFailure) (types.List, diag.Diagnostics) {
	elems := make([]attr.Value, 0, len(failed))
	var diags diag.Diagnostics
	for _, f := range failed {
		o, d := types.ObjectValue(nodeFailureAttrTypes, map[string]attr.Value{
			"name": types.StringValue(f.Node), "reason": types.StringValue(f.Reason), "time": types.StringValue(f.Time),
		})
		diags.Append(d...)
		elems = append(elems, o)
	}
	l, d := types.ListValue(nodeFailureType, elems)
	diags.Append(d...)
	return l, diags
}
