package tfutil

import (
	"fmt"
	"slices"
	"strings"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

// ControllerPartitions lists, sorted, the partitions whose keys (hypercompute-partition-<name>) a
// controller's metadata md holds: the partitions the cluster has.
func ControllerPartitions(md map[string]string) []string {
	var out []string
	for k := range md {
		if name, ok := strings.CutPrefix(k, cc.PartitionKeyPrefix); ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// MissingPartition returns the first of names that the cluster ref has no partition of (no key in
// its controller's metadata md) and, when planned is not nil (at plan), that no
// hypercompute_node_partition planned in this operation either; "" when there is none. A
// partition created in the same apply is planned before whatever references its name, so it is
// found here at plan, and on the controller at apply.
func MissingPartition(planned *providerdata.PlannedPartitions, ref cc.ClusterID, md map[string]string, names []string) string {
	for _, n := range names {
		if _, ok := md[cc.PartitionKey(n)]; ok {
			continue
		}
		if planned != nil && planned.Planned(ref.String(), n) {
			continue
		}
		return n
	}
	return ""
}

// NoPartitionMessage says that the cluster ref has no partition name, listing the partitions it
// has (from its controller's metadata md) and how to make one; atPlan adds that none is planned
// in this operation either. Callers prefix it with the attribute.
func NoPartitionMessage(ref cc.ClusterID, md map[string]string, name string, atPlan bool) string {
	has := "it has no partition yet"
	if parts := ControllerPartitions(md); len(parts) > 0 {
		has = "its partitions: " + strings.Join(parts, ", ")
	}
	planned := ""
	if atPlan {
		planned = ", and no hypercompute_node_partition of that name is planned in this operation"
	}
	return fmt.Sprintf("cluster %s has no partition %q (%s)%s; create it with hypercompute_node_partition and reference its name "+
		"(hypercompute_node_partition.<name>.name), so it is planned and created first", ref.Name, name, has, planned)
}
