package clusterconfig

import (
	"fmt"
	"slices"
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

// LoginPoolName is the name and hostname of VM i of login pool pool; pool "" is the cluster's own
// login VMs (LoginName).
func LoginPoolName(cluster, pool string, i int) string {
	if pool == "" {
		return LoginName(cluster, i)
	}
	return cluster + loginSuffix + pool + "-" + strconv.Itoa(i)
}

// ParseLoginName reads a login VM's name back: its pool ("" for the cluster's own login VMs) and
// index. Indexes are plain decimals below MaxLoginNodes, so no pool's name can be read as another's.
func ParseLoginName(cluster, vm string) (pool string, i int, ok bool) {
	rest, ok := strings.CutPrefix(vm, cluster+loginSuffix)
	if !ok {
		return "", 0, false
	}
	num := rest
	if j := strings.LastIndex(rest, "-"); j >= 0 {
		pool, num = rest[:j], rest[j+1:]
		if pool == "" {
			return "", 0, false
		}
	}
	if num == "" || (len(num) > 1 && num[0] == '0') {
		return "", 0, false
	}
	i, err := strconv.Atoi(num)
	if err != nil || i < 0 || i >= MaxLoginNodes {
		return "", 0, false
	}
	return pool, i, true
}

// LoginVMs are the names of every login VM of the cluster, its own and its pools'.
func (c Cluster) LoginVMs() []string {
	var out []string
	for i := range c.LoginCount {
		out = append(out, LoginName(c.Name, i))
	}
	if c.Cloud != nil {
		for _, p := range c.Cloud.LoginPools {
			for i := range p.Count {
				out = append(out, LoginPoolName(c.Name, p.Name, i))
			}
		}
	}
	return out
}

// NodeNamePrefix derives a partition's node name prefix: the cluster name
// and the partition name, lowercased with "_" turned into "-" because
// Slurm partition names allow both but host and VM names allow neither.
func NodeNamePrefix(cluster, partition string) string {
	return cluster + "-" + strings.ReplaceAll(strings.ToLower(partition), "_", "-")
}

// NodeName is the Slurm node name, hostname and VM name of static node i:
// "<prefix>-<i>".
func NodeName(prefix string, i int) string { return prefix + "-" + strconv.Itoa(i) }

// DynamicNodeName is the name of dynamic node i: "<prefix>-d<i>". Static and
// dynamic nodes have ranges of their own, so a node's name never changes
// meaning when either count changes: scaling the static nodes leaves every
// dynamic node (and its jobs) alone, and the reverse. No static name of any
// partition can equal a dynamic one: a static name ends in "-<digits>", a
// dynamic one in "-d<digits>".
func DynamicNodeName(prefix string, i int) string { return dynamicPrefix(prefix) + strconv.Itoa(i) }

func dynamicPrefix(prefix string) string { return prefix + "-d" }

// NodeSetName is the Slurm NodeSet that holds a partition's nodes. The
// "_nodes" suffix cannot occur in a node name (node names never contain
// "_"), so a NodeSet never shadows a node.
func NodeSetName(partition string) string { return partition + "_nodes" }

// hostRange renders indexes [0, count) of a range whose names are stem
// followed by the index as a Slurm hostlist: "p-3" for one node,
// "p-[0-999]" for many, so a partition of any size is one short expression.
func hostRange(stem string, count int) string {
	if count == 1 {
		return stem + "0"
	}
	return fmt.Sprintf("%s[0-%d]", stem, count-1)
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

// StaticNodeNames is the Slurm hostlist of the static nodes, <prefix>-[0-N)
// ("" when none).
func (p Partition) StaticNodeNames(cluster string) string {
	if p.StaticNodes <= 0 {
		return ""
	}
	return hostRange(p.Prefix(cluster)+"-", p.StaticNodes)
}

// DynamicNodeNames is the Slurm hostlist of the dynamic nodes,
// <prefix>-d[0-M) ("" when none).
func (p Partition) DynamicNodeNames(cluster string) string {
	if p.MaxDynamicNodes <= 0 {
		return ""
	}
	return hostRange(dynamicPrefix(p.Prefix(cluster)), p.MaxDynamicNodes)
}

// AllNodeNames is the hostlist of every node of the partition in Slurm: the
// static range, the dynamic range and the nodes a scale-down still drains
// (SlurmStaticNames, SlurmDynamicNames), in slurm.conf's order.
func (p Partition) AllNodeNames(cluster string) string {
	return joinHostlists(p.SlurmStaticNames(cluster), p.SlurmDynamicNames(cluster))
}

// SlurmStaticNames is what slurm.conf lists as the partition's static nodes:
// the static range and the static nodes of a pending Drain (removed from the
// count, kept in Slurm until their jobs end and their VMs are deleted).
func (p Partition) SlurmStaticNames(cluster string) string {
	static, _ := p.drainedOutside(cluster)
	return joinHostlists(p.StaticNodeNames(cluster), CompressHostlist(static))
}

// SlurmDynamicNames is what slurm.conf lists as the partition's dynamic
// nodes: the dynamic range and the dynamic nodes of a pending Drain.
func (p Partition) SlurmDynamicNames(cluster string) string {
	_, dynamic := p.drainedOutside(cluster)
	return joinHostlists(p.DynamicNodeNames(cluster), CompressHostlist(dynamic))
}

// drainedOutside sorts the nodes of a pending Drain that lie outside the
// declared ranges into static and dynamic names; names that are neither
// (not the partition's) are ignored.
func (p Partition) drainedOutside(cluster string) (static, dynamic []string) {
	if p.Drain == nil {
		return nil, nil
	}
	names, err := ExpandHostlist(p.Drain.Nodes)
	if err != nil {
		return nil, nil
	}
	prefix := p.Prefix(cluster)
	for _, n := range names {
		i, isStatic, ok := parseNodeName(prefix, n)
		switch {
		case !ok:
		case isStatic && i >= p.StaticNodes:
			static = append(static, n)
		case !isStatic && i >= p.MaxDynamicNodes:
			dynamic = append(dynamic, n)
		}
	}
	return static, dynamic
}

func joinHostlists(lists ...string) string {
	var out []string
	for _, l := range lists {
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, ",")
}

// ParseNodeName reads a node name of the partition prefix: its index within
// its range and whether it is a static (<prefix>-<i>) or a dynamic
// (<prefix>-d<i>) node, whatever the counts are now. ok is false for any
// other name, and for zero-padded indexes.
func ParseNodeName(prefix, node string) (index int, static, ok bool) {
	return parseNodeName(prefix, node)
}

func parseNodeName(prefix, node string) (int, bool, bool) {
	rest, found := strings.CutPrefix(node, prefix+"-")
	if !found {
		return 0, false, false
	}
	static := true
	if r, dyn := strings.CutPrefix(rest, "d"); dyn {
		rest, static = r, false
	}
	if rest == "" || (len(rest) > 1 && rest[0] == '0') || strings.TrimLeft(rest, "0123456789") != "" {
		return 0, false, false
	}
	i, err := strconv.Atoi(rest)
	if err != nil || i < 0 {
		return 0, false, false
	}
	return i, static, true
}

// NodeIndex parses a node name of the partition as Slurm knows it now: its
// index within its range, whether it is a static node, and ok=false when the
// name is not one of the partition's (outside both ranges and not drained
// for a scale-down).
func (p Partition) NodeIndex(cluster, node string) (index int, static, ok bool) {
	i, static, ok := parseNodeName(p.Prefix(cluster), node)
	if !ok {
		return 0, false, false
	}
	if (static && i < p.StaticNodes) || (!static && i < p.MaxDynamicNodes) {
		return i, static, true
	}
	s, d := p.drainedOutside(cluster)
	if slices.Contains(s, node) || slices.Contains(d, node) {
		return i, static, true
	}
	return 0, false, false
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
	var longest []string
	if p.StaticNodes > 0 {
		longest = append(longest, NodeName(prefix, p.StaticNodes-1))
	}
	if p.MaxDynamicNodes > 0 {
		longest = append(longest, DynamicNodeName(prefix, p.MaxDynamicNodes-1))
	}
	for _, longest := range longest {
		if len(longest) > 63 {
			return fmt.Errorf("partition %q: node name %q is %d characters long; VM and host names allow at most 63, so shorten the cluster name (%q) or the partition name",
				p.Name, longest, len(longest), cluster)
		}
	}
	return nil
}
