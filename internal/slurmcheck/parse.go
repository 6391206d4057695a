package slurmcheck

import (
	"sort"
	"strconv"
	"strings"
)

// Partition is a partition as slurmctld loaded it (scontrol show partition).
type Partition struct {
	Name    string
	Default bool
	State   string
	// Nodes is the hostlist slurmctld resolved, e.g. "c-a3-[0-31]".
	Nodes         string
	NodeSets      string
	TotalNodes    int
	TotalCPUs     int
	MaxTime       string
	OverSubscribe string
	ResumeTimeout string
	SuspendTime   string
	// Fields holds every field scontrol printed.
	Fields map[string]string
}

// Node is a node as slurmctld loaded it (scontrol show node).
type Node struct {
	Name         string
	State        string
	CPUs         int
	RealMemoryMB int
	// Gres is "(null)" when slurmctld dropped the node's GRES.
	Gres       string
	Features   []string
	Partitions []string
	Fields     map[string]string
}

// SinfoRow is one line of `sinfo -o "%P %D %T %G %f"`.
type SinfoRow struct {
	Partition string
	Default   bool
	Nodes     int
	State     string
	Gres      string
	Features  string
}

// parseOneLiners parses `scontrol -o show ...` output: one record a line,
// "Key=Value" fields separated by spaces. A word without "=" continues the
// previous value (values such as Reason contain spaces).
func parseOneLiners(out string) []map[string]string {
	var recs []map[string]string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		rec := map[string]string{}
		last := ""
		for _, w := range strings.Split(line, " ") {
			if w == "" {
				continue
			}
			k, v, ok := strings.Cut(w, "=")
			if !ok && last != "" {
				rec[last] += " " + w
				continue
			}
			rec[k] = v
			last = k
		}
		recs = append(recs, rec)
	}
	return recs
}

func parsePartitions(out string) []Partition {
	var ps []Partition
	for _, f := range parseOneLiners(out) {
		ps = append(ps, Partition{
			Name:          f["PartitionName"],
			Default:       f["Default"] == "YES",
			State:         f["State"],
			Nodes:         f["Nodes"],
			NodeSets:      f["NodeSets"],
			TotalNodes:    atoi(f["TotalNodes"]),
			TotalCPUs:     atoi(f["TotalCPUs"]),
			MaxTime:       f["MaxTime"],
			OverSubscribe: f["OverSubscribe"],
			ResumeTimeout: f["ResumeTimeout"],
			SuspendTime:   f["SuspendTime"],
			Fields:        f,
		})
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	return ps
}

func parseNodes(out string) []Node {
	var ns []Node
	for _, f := range parseOneLiners(out) {
		ns = append(ns, Node{
			Name:         f["NodeName"],
			State:        f["State"],
			CPUs:         atoi(f["CPUTot"]),
			RealMemoryMB: atoi(f["RealMemory"]),
			Gres:         f["Gres"],
			Features:     splitNonEmpty(f["AvailableFeatures"]),
			Partitions:   splitNonEmpty(f["Partitions"]),
			Fields:       f,
		})
	}
	sort.Slice(ns, func(i, j int) bool { return ns[i].Name < ns[j].Name })
	return ns
}

// parseSinfo parses `sinfo -o "%P %D %T %G %f"`, header included.
func parseSinfo(out string) []SinfoRow {
	var rows []SinfoRow
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 5 || f[0] == "PARTITION" {
			continue
		}
		name, def := strings.CutSuffix(f[0], "*")
		rows = append(rows, SinfoRow{Partition: name, Default: def, Nodes: atoi(f[1]), State: f[2], Gres: f[3], Features: f[4]})
	}
	return rows
}

// parseConfig parses `scontrol show config`: "Key = value" lines.
func parseConfig(out string) map[string]string {
	cfg := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(line, " = ")
		if ok && !strings.Contains(strings.TrimSpace(k), " ") {
			cfg[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return cfg
}

func splitNonEmpty(s string) []string {
	if s == "" || s == "(null)" {
		return nil
	}
	return strings.Split(s, ",")
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
