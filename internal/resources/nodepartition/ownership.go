package nodepartition

import (
	"context"
	"fmt"
	"strings"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Which partition a create may take over (tfutil/key_ownership.go has the whole lifecycle).
//
// A partition owns its key on the controller, its instance templates, its placement policy and
// its VMs, all named after the cluster and the partition alone. Its key is the one place that
// says how far a create got, so a create claims it first, marked as unfinished, before it makes
// anything else — a template or a VM of the partition then exists only after its key does — and
// unmarks it once the controller applied the configuration and the new nodes registered. A create
// thus finishes a marked key with whatever its earlier run made, and refuses, before any
// mutating call:
//   - a key without the marker: a finished partition, another state's or an earlier apply's;
//   - VMs of the partition without any key: a destroy that did not finish (it removes the key
//     first), or VMs made outside Terraform. Deleting them (a create deletes nodes outside its
//     counts), or taking another state's key over, is what a create must never do.
//
// Instance templates alone do not refuse a create: a partition with neither key nor VMs is one
// that Read itself reports gone (every state that had it drops it at refresh and creates it
// again, as TestAccNodePartition_disappears shows), templates are immutable and named after their
// content, and no job runs on them.

// ownedKey is the partition's key on the controller, as a create claims it.
func ownedKey(c cc.ClusterID, name string) tfutil.OwnedKey {
	return tfutil.OwnedKey{Type: "hypercompute_node_partition", What: "partition", Cluster: c, Name: name,
		Key: cc.PartitionKey(name), ImportID: partitionID(c, name)}
}

// checkClaim refuses a create that would take over what it did not make; it makes read calls only.
func (a *applier) checkClaim(ctx context.Context, ci *clusterInfo, inv inventory) error {
	md := metadataItems(ci.controller)
	if err := a.create.CheckClaim(md); err != nil {
		return err
	}
	if _, keyed := md[a.create.Key]; keyed || len(inv) == 0 {
		return nil // an unfinished create of this partition (its VMs are its own), or nothing at all
	}
	found := "VMs " + cc.CompressHostlist(inv.names())
	tmpls, err := listTemplates(ctx, a.cl, a.d.project, a.d.prefix)
	if err != nil {
		return err
	}
	if len(tmpls) > 0 {
		found += " and instance templates " + strings.Join(tmpls, ", ")
	}
	return a.create.NotOurs(
		fmt.Sprintf("the controller %s has no key %s, but its %s exist", a.d.cluster.Controller(), a.create.Key, found),
		"no unfinished create left (a create writes the key, marked as unfinished, before it makes anything else; "+
			"a destroy removes the key first, so these may be what a destroy left)")
}

// configValue is the partition's key value as the apply writes it: marked as unfinished while a
// create runs, so a crash at any point leaves a key the next create finishes.
func (a *applier) configValue(part cc.Partition) (string, error) {
	b, err := cc.EncodePartition(a.d.cluster.Name, part)
	if err != nil {
		return "", err
	}
	if a.create == nil {
		return string(b), nil
	}
	return a.create.Pending(string(b))
}
