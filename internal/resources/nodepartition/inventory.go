package nodepartition

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"cloud.google.com/go/compute/apiv1/computepb"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/bulk"
)

// vm is what a partition keeps of one of its VMs: no per-VM blobs reach the state.
type vm struct {
	name string
	// index is the node's index within its range: static <prefix>-<index> or dynamic
	// <prefix>-d<index>.
	index   int
	dynamic bool
	status  string
	labels  map[string]string
	// labelFingerprint lets a label change be written without another read.
	labelFingerprint string
}

// inventory is the partition's VMs by key: a static node's index, or dynamicKey(index) for a
// dynamic node, so code that looks at static indexes (i < static) never meets a dynamic node.
type inventory map[int]vm

// dynamicKeyBase puts dynamic nodes above every static index (at most cc.MaxPartitionNodes).
const dynamicKeyBase = 1 << 30

func dynamicKey(i int) int { return dynamicKeyBase + i }

// listNodes lists the partition's VMs by their label, page by page: never one GET per VM. VMs
// whose names parse neither as <prefix>-<index> nor as <prefix>-d<index> are not the partition's
// and are skipped.
func listNodes(ctx context.Context, cl *gcp.Clients, project, zone, prefix string) (inventory, error) {
	inv := inventory{}
	err := bulk.ListLabelled(ctx, cl, project, zone, labelPartition, prefix, func(inst *computepb.Instance) {
		i, static, ok := cc.ParseNodeName(prefix, inst.GetName())
		if !ok {
			return
		}
		v := vm{name: inst.GetName(), index: i, dynamic: !static, status: inst.GetStatus(), labels: inst.GetLabels(), labelFingerprint: inst.GetLabelFingerprint()}
		key := i
		if !static {
			key = dynamicKey(i)
		}
		inv[key] = v
	})
	if err != nil {
		return nil, fmt.Errorf("listing the VMs of partition %s in %s: %w", prefix, zone, err)
	}
	return inv, nil
}

// within reports whether a VM lies inside the partition's counts.
func (v vm) within(static, dynamic int) bool {
	if v.dynamic {
		return v.index < dynamic
	}
	return v.index < static
}

func (inv inventory) names() []string {
	out := make([]string, 0, len(inv))
	for _, i := range slices.Sorted(maps.Keys(inv)) {
		out = append(out, inv[i].name)
	}
	return out
}

func (inv inventory) running() int {
	n := 0
	for _, v := range inv {
		if v.status == "RUNNING" {
			n++
		}
	}
	return n
}

// outside counts the static and the dynamic VMs outside the counts: nodes a scale-down has not
// deleted yet (its drain ran past drain_timeout), or VMs named by an earlier naming of the nodes.
// A refresh adds them to the counts it reads back, so the plan shows the scale-down still to do.
func (inv inventory) outside(static, dynamic int) (staticVMs, dynamicVMs int) {
	for _, v := range inv {
		switch {
		case v.within(static, dynamic):
		case v.dynamic:
			dynamicVMs++
		default:
			staticVMs++
		}
	}
	return staticVMs, dynamicVMs
}

// countBelow is how many static VMs have an index below n (the static nodes present).
func (inv inventory) countBelow(n int) int {
	c := 0
	for _, v := range inv {
		if !v.dynamic && v.index < n {
			c++
		}
	}
	return c
}

// missing lists the names of indexes [0, n) that have no VM.
func (inv inventory) missing(prefix string, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		if _, ok := inv[i]; !ok {
			out = append(out, cc.NodeName(prefix, i))
		}
	}
	return out
}

// summary is the compact picture of the partition the state keeps.
type summary struct {
	total, running int
	names          string
}

func (inv inventory) summary() summary {
	return summary{total: len(inv), running: inv.running(), names: cc.CompressHostlist(inv.names())}
}
