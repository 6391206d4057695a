package clusterconfig

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// MaxClusterNameLength leaves room in every derived name (at most 63
// characters, Compute's and RFC 1035's limit) for a partition name and a
// node index after the cluster name: "<cluster>-<partition>-<index>".
const MaxClusterNameLength = 32

// Suffixes of the cluster's own VM names.
const (
	controllerSuffix = "-controller"
	loginSuffix      = "-login-"
)

// MaxLoginNodes bounds LoginCount.
const MaxLoginNodes = 16

// ValidateClusterName checks a cluster name: a Compute name (RFC 1035) of at
// most MaxClusterNameLength characters, so the controller, login and node
// names derived from it stay valid host and VM names.
func ValidateClusterName(name string) error {
	if err := catalog.ValidateResourceName(name); err != nil {
		return fmt.Errorf("cluster %w", err)
	}
	if len(name) > MaxClusterNameLength {
		return fmt.Errorf("cluster name %q is %d characters long; at most %d are allowed so that the VM names derived from it (%s, %s, <cluster>-<partition>-<index>) stay within 63 characters",
			name, len(name), MaxClusterNameLength, ControllerName(name), LoginName(name, 0))
	}
	return nil
}

// ControllerName is the controller VM's name and hostname.
func ControllerName(cluster string) string { return cluster + controllerSuffix }

// LoginName is the name and hostname of login VM i (0-based).
func LoginName(cluster string, i int) string { return cluster + loginSuffix + strconv.Itoa(i) }

// NodeNamePrefix derives a partition's node name prefix: the cluster name
// and the partition name, lowercased with "_" turned into "-" because
// Slurm partition names allow both but host and VM names allow neither.
func NodeNamePrefix(cluster, partition string) string {
	return cluster + "-" + strings.ReplaceAll(strings.ToLower(partition), "_", "-")
}

// NodeName is the Slurm node name, hostname and VM name of node index i.
func NodeName(prefix string, i int) string { return prefix + "-" + strconv.Itoa(i) }

// NodeSetName is the Slurm NodeSet that holds a partition's nodes. The
// "_nodes" suffix cannot occur in a node name (node names never contain
// "_"), so a NodeSet never shadows a node.
func NodeSetName(partition string) string { return partition + "_nodes" }

// hostRange renders indexes [first, first+count) of prefix as a Slurm
// hostlist: "p-3" for one node, "p-[0-999]" for many, so a partition of any
// size is one short expression.
func hostRange(prefix string, first, count int) string {
	if count == 1 {
		return NodeName(prefix, first)
	}
	return fmt.Sprintf("%s-[%d-%d]", prefix, first, first+count-1)
}

// Prefix returns the partition's node name prefix in a cluster.
func (p Partition) Prefix(cluster string) string {
	if p.NodeNamePrefix != "" {
		return p.NodeNamePrefix
	}
	return NodeNamePrefix(cluster, p.Name)
}

// TotalNodes is the most nodes the partition can have.
func (p Partition) TotalNodes() int { return p.StaticNodes + p.MaxDynamicNodes }

// StaticNodeNames is the Slurm hostlist of the static nodes ("" when none).
func (p Partition) StaticNodeNames(cluster string) string {
	if p.StaticNodes <= 0 {
		return ""
	}
	return hostRange(p.Prefix(cluster), 0, p.StaticNodes)
}

// DynamicNodeNames is the Slurm hostlist of the dynamic nodes ("" when none).
func (p Partition) DynamicNodeNames(cluster string) string {
	if p.MaxDynamicNodes <= 0 {
		return ""
	}
	return hostRange(p.Prefix(cluster), p.StaticNodes, p.MaxDynamicNodes)
}

// AllNodeNames is the hostlist of every node of the partition.
func (p Partition) AllNodeNames(cluster string) string {
	if p.TotalNodes() <= 0 {
		return ""
	}
	return hostRange(p.Prefix(cluster), 0, p.TotalNodes())
}

// NodeIndex parses a node name of the partition: its index, whether it is a
// static node, and ok=false when the name is not one of the partition's.
func (p Partition) NodeIndex(cluster, node string) (index int, static, ok bool) {
	rest, found := strings.CutPrefix(node, p.Prefix(cluster)+"-")
	if !found || rest == "" || (len(rest) > 1 && rest[0] == '0') {
		return 0, false, false
	}
	i, err := strconv.Atoi(rest)
	if err != nil || i < 0 || i >= p.TotalNodes() {
		return 0, false, false
	}
	return i, i < p.StaticNodes, true
}

// validatePartitionNames checks the partition's Slurm name and that every
// node name it derives is a valid VM and host name.
func validatePartitionNames(cluster string, p Partition) error {
	if err := catalog.ValidateSlurmPartitionName(p.Name); err != nil {
		return err
	}
	prefix := p.Prefix(cluster)
	if err := catalog.ValidateResourceName(prefix); err != nil {
		return fmt.Errorf("partition %q: node name prefix %w", p.Name, err)
	}
	if p.TotalNodes() > 0 {
		longest := NodeName(prefix, p.TotalNodes()-1)
		if len(longest) > 63 {
			return fmt.Errorf("partition %q: node name %q is %d characters long; VM and host names allow at most 63, so shorten the cluster name (%q) or the partition name",
				p.Name, longest, len(longest), cluster)
		}
	}
	return nil
}
