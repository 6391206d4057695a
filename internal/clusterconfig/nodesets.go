package clusterconfig

import (
	"fmt"
	"maps"
	"sort"
	"strconv"
)

// Several node sets (hypercompute_node_partition resources) can form one Slurm partition: each
// keeps its machine type, provisioning, template, counts and node names, and slurm.conf lists
// all their nodes in one PartitionName line. Slurm allocates a job the nodes with the lowest
// Weight that satisfy it (slurm.conf(5), "Weight"), so "reserved first, then spot, then
// flex-start" is three node sets of one partition with rising weights.

// Provisioning models, as hypercompute_node_partition's provisioning.model spells them.
const (
	ProvisioningReservation = "reservation"
	ProvisioningStandard    = "standard"
	ProvisioningSpot        = "spot"
	ProvisioningFlexStart   = "flex_start"
)

// Default node weights per provisioning model: capacity that is paid for anyway (a reservation)
// first, then on-demand, then Spot (cheaper, but preempted), then flex-start (waits for capacity
// and runs a bounded time). Steps of 10 leave room for a weight in between.
var defaultWeights = map[string]int{
	ProvisioningReservation: 10,
	ProvisioningStandard:    20,
	ProvisioningSpot:        30,
	ProvisioningFlexStart:   40,
}

// MaxWeight bounds a node set's weight (Slurm's is a 32-bit count; this leaves it readable).
const MaxWeight = 1000000

// DefaultWeight is the node weight of a provisioning model's node sets; 0 for an unknown or empty
// model (no Weight rendered: Slurm's default, 1).
func DefaultWeight(provisioning string) int { return defaultWeights[provisioning] }

// SlurmName is the Slurm partition the node set's nodes belong to.
func (p Partition) SlurmName() string {
	if p.SlurmPartition != "" {
		return p.SlurmPartition
	}
	return p.Name
}

// EffectiveWeight is the Weight slurm.conf gives the node set's nodes; 0: none rendered.
func (p Partition) EffectiveWeight() int {
	if p.Weight > 0 {
		return p.Weight
	}
	return DefaultWeight(p.Provisioning)
}

// NodeSetsOf returns the node sets among parts that form the Slurm partition name, sorted by
// node set name.
func NodeSetsOf(parts []Partition, name string) []Partition {
	var out []Partition
	for _, p := range parts {
		if p.SlurmName() == name {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SharedSettingConflict compares the partition-wide Slurm settings of two node sets of one Slurm
// partition (slurm.conf has one PartitionName line for them) and describes the first that
// differs, naming the attribute as hypercompute_node_partition spells it; "" when they agree.
func SharedSettingConflict(a, b Partition) string {
	diff := func(attr, av, bv string) string {
		return fmt.Sprintf("slurm.%s is %s here but %s in node set %q", attr, av, bv, b.Name)
	}
	q := strconv.Quote
	seconds := func(v int) string {
		if v == 0 {
			return "unset"
		}
		return strconv.Itoa(v)
	}
	switch {
	case a.Default != b.Default:
		return diff("default", strconv.FormatBool(a.Default), strconv.FormatBool(b.Default))
	case a.Exclusive != b.Exclusive:
		return diff("exclusive", strconv.FormatBool(a.Exclusive), strconv.FormatBool(b.Exclusive))
	case a.MaxTime != b.MaxTime:
		return diff("max_time", orUnset(q(a.MaxTime), a.MaxTime), orUnset(q(b.MaxTime), b.MaxTime))
	case a.ResumeTimeout != b.ResumeTimeout:
		return diff("resume_timeout", seconds(a.ResumeTimeout), seconds(b.ResumeTimeout))
	case a.SuspendTime != b.SuspendTime:
		return diff("suspend_time", seconds(a.SuspendTime), seconds(b.SuspendTime))
	case !maps.Equal(a.Extra, b.Extra):
		return diff("extra", fmt.Sprint(sortedMap(a.Extra)), fmt.Sprint(sortedMap(b.Extra)))
	}
	return ""
}

func orUnset(quoted, v string) string {
	if v == "" {
		return "unset"
	}
	return quoted
}

// sortedMap prints as map[k:v ...] in key order (fmt sorts map keys), or {} when empty.
func sortedMap(m map[string]string) any {
	if len(m) == 0 {
		return "{}"
	}
	return m
}

// validateNodeSets checks what only several node sets together show: the node sets of one Slurm
// partition agree on its partition-wide settings, and no node set's own name is a Slurm
// partition that other node sets form unless it joins that partition (its key, guest attributes,
// health policies and recipe jobs name it, and one name must mean one thing). parts is sorted by
// name.
func validateNodeSets(parts []Partition) error {
	first := map[string]Partition{}
	for _, p := range parts {
		f, seen := first[p.SlurmName()]
		if !seen {
			first[p.SlurmName()] = p
			continue
		}
		if msg := SharedSettingConflict(p, f); msg != "" {
			return fmt.Errorf("partition %q joins Slurm partition %q: %s; the node sets of one Slurm partition share its partition-wide settings (default, exclusive, max_time, resume_timeout, suspend_time, extra)",
				p.Name, p.SlurmName(), msg)
		}
	}
	for _, p := range parts {
		if err := NameClash(p, parts); err != nil {
			return err
		}
	}
	return nil
}

// NameClash refuses a node set whose own name is the Slurm partition other node sets form while
// it joins another one, or that joins a Slurm partition named after a node set that is not in it.
func NameClash(p Partition, parts []Partition) error {
	for _, q := range parts {
		if q.Name == p.Name {
			continue
		}
		if q.SlurmName() == p.Name && p.SlurmName() != p.Name {
			return fmt.Errorf("partition %q joins Slurm partition %q, but node set %q forms a Slurm partition named %q: a node set's name can only be a Slurm partition it is part of; rename one of them or set slurm.partition = %q on %q",
				p.Name, p.SlurmName(), q.Name, p.Name, p.Name, p.Name)
		}
		if p.SlurmName() == q.Name && q.SlurmName() != q.Name {
			return fmt.Errorf("partition %q joins Slurm partition %q, but node set %q of that name is part of Slurm partition %q: a node set's name can only be a Slurm partition it is part of; choose another slurm.partition",
				p.Name, p.SlurmName(), q.Name, q.SlurmName())
		}
	}
	return nil
}
