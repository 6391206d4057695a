package nodepartition

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/bulk"
)

// vm is what a partition keeps of one of its VMs: no per-VM blobs reach the state.
type vm struct {
	name   string
	index  int
	status string
	labels map[string]string
	// labelFingerprint lets a label change be written without another read.
	labelFingerprint string
}

// inventory is the partition's VMs by index.
type inventory map[int]vm

// listNodes lists the partition's VMs by their label, page by page: never one GET per VM. VMs
// whose names do not parse as <prefix>-<index> are not the partition's and are skipped.
func listNodes(ctx context.Context, cl *gcp.Clients, project, zone, prefix string) (inventory, error) {
	inv := inventory{}
	err := bulk.ListLabelled(ctx, cl, project, zone, labelPartition, prefix, func(inst *computepb.Instance) {
		if i, ok := nodeIndex(prefix, inst.GetName()); ok {
			inv[i] = vm{name: inst.GetName(), index: i, status: inst.GetStatus(), labels: inst.GetLabels(), labelFingerprint: inst.GetLabelFingerprint()}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("listing the VMs of partition %s in %s: %w", prefix, zone, err)
	}
	return inv, nil
}

// nodeIndex parses <prefix>-<index> (no zero padding).
func nodeIndex(prefix, name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix+"-")
	if !ok || rest == "" || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	i, err := strconv.Atoi(rest)
	return i, err == nil && i >= 0
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

// countBelow is how many VMs have an index below n (the static nodes present).
func (inv inventory) countBelow(n int) int {
	c := 0
	for i := range inv {
		if i < n {
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
