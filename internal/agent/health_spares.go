package agent

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// Spare nodes: a policy's spare_node_count idle static nodes of each partition it covers are held
// in a Slurm reservation (cc.SpareReservation) that jobs do not ask for, so they never run there.
// Each node of the partition out of service (drained by a check, under repair, down) takes one
// spare out of the reservation, where the requeued job finds it at once; once the node is back, an
// idle node (the repaired one, since the job moved to the spare) joins the reservation again.

// outOfService reports a node that cannot run jobs now: drained, down or not responding.
func outOfService(state string) bool {
	return state == "" || strings.HasPrefix(state, "drain") || strings.HasPrefix(state, "down") || strings.HasPrefix(state, "fail") ||
		strings.ContainsAny(state, "*~#%!")
}

// spareSet is the spares a partition keeps now: the current spares that are still in service,
// fewer by one per member out of service, topped up with idle nodes (in name order) up to that
// count; at most all members but one.
func spareSet(members []string, want int, current []string, state map[string]string, inRepair map[string]bool) []string {
	out := 0
	for _, n := range members {
		if inRepair[n] || outOfService(state[n]) {
			out++
		}
	}
	want = min(max(0, want-out), len(members)-1)
	var keep []string
	for _, n := range current {
		if slices.Contains(members, n) && !inRepair[n] && !outOfService(state[n]) && len(keep) < want {
			keep = append(keep, n)
		}
	}
	for _, n := range members {
		if len(keep) >= want {
			break
		}
		// A node in a reservation shows "reserved" once the reservation holds it; only an idle
		// node joins, so no job loses its node to the reservation.
		if !slices.Contains(keep, n) && state[n] == "idle" && !inRepair[n] {
			keep = append(keep, n)
		}
	}
	sort.Strings(keep)
	return keep
}

// keepSpares brings each partition's reservation to its spare set and records the changes.
func (c *controller) keepSpares(ctx context.Context, l cc.Layout, nodePart map[string]string, nodes slurmNodes, st *healthState, now time.Time) {
	members := map[string][]string{}
	for n, p := range nodePart {
		members[p] = append(members[p], n)
	}
	inRepair := map[string]bool{}
	for _, r := range st.InProgress {
		inRepair[r.Node] = true
	}
	if st.Spares == nil {
		st.Spares = map[string][]string{}
	}
	parts := map[string]bool{}
	for p := range st.Spares {
		parts[p] = true
	}
	for p, ph := range c.plan.Partitions {
		if ph.SpareNodes > 0 {
			parts[p] = true
		}
	}
	for p := range parts {
		m := members[p]
		sort.Strings(m)
		want := 0
		if ph, ok := c.plan.Partitions[p]; ok && len(c.policies) > 0 {
			want = ph.SpareNodes
		}
		next := spareSet(m, want, st.Spares[p], nodes.state, inRepair)
		if slices.Equal(next, st.Spares[p]) {
			continue
		}
		if err := slurmCLI(l).SetReservation(ctx, cc.SpareReservation(p), len(st.Spares[p]) > 0, next); err != nil {
			c.log.Warn("updating the spare nodes' reservation", "partition", p, "spares", strings.Join(next, ","), "error", err.Error())
			continue
		}
		for _, n := range st.Spares[p] {
			if !slices.Contains(next, n) {
				st.Events = append(st.Events, HealthEvent{Time: now, Node: n, Kind: "spare-released", Detail: "in service for " + p})
			}
		}
		for _, n := range next {
			if !slices.Contains(st.Spares[p], n) {
				st.Events = append(st.Events, HealthEvent{Time: now, Node: n, Kind: "spare-added", Detail: "held in reservation " + cc.SpareReservation(p)})
			}
		}
		c.log.Info("spare nodes", "partition", p, "spares", strings.Join(next, ","))
		if len(next) == 0 {
			delete(st.Spares, p)
		} else {
			st.Spares[p] = next
		}
	}
}

// releaseSpares deletes the spare reservations once no policy applies.
func (c *controller) releaseSpares(ctx context.Context, cluster cc.Cluster, parts []cc.Partition, nodes slurmNodes) {
	st := c.loadHealth()
	if len(st.Spares) == 0 {
		return
	}
	nodePart := map[string]string{}
	for _, p := range parts {
		names, _ := cc.ExpandHostlist(p.StaticNodeNames(cluster.Name))
		for _, n := range names {
			nodePart[n] = p.Name
		}
	}
	c.keepSpares(ctx, cluster.Layout, nodePart, nodes, st, time.Now())
	if err := c.saveHealth(st); err != nil {
		c.log.Warn("saving the health state", "error", err.Error())
	}
}
