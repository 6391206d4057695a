package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/power"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// Calendar partitions (cc.Calendar): the controller follows each one's future reservation. Before delivery its
// nodes stay drained, so no job makes Slurm power one up; once delivered they return to service and the static
// ones are powered up (power.Resume creates them on the delivered reservation); CalendarNoticeLead before the end
// they are drained and the jobs on them get SIGUSR1, the usual stop notice; once the reservation is gone (Compute
// stops its VMs at the end) they stay drained and their VMs are deleted. Only drains with a calendar reason are
// ever undone, so a health check's or an administrator's drain stays.

// calendarWatch is how often a calendar partition's future reservation is read while it waits or runs.
const calendarWatch = 10 * time.Second

type calendarPhase int

const (
	calendarWaiting calendarPhase = iota
	calendarDelivered
	calendarEnding
	calendarEnded
)

func (p calendarPhase) String() string {
	return [...]string{"waiting", "delivered", "ending", "ended"}[p]
}

// phaseOf is where a future reservation stands: delivered means FULFILLED with its reservation still there.
func phaseOf(fr *computepb.FutureReservation, reservationExists bool, end, now time.Time) calendarPhase {
	st := fr.GetStatus()
	switch st.GetProcurementStatus() {
	case "FULFILLED":
		if !reservationExists {
			return calendarEnded
		}
		if !end.IsZero() && !now.Before(end.Add(-cc.CalendarNoticeLead)) {
			return calendarEnding
		}
		return calendarDelivered
	case "CANCELLED", "DECLINED", "FAILED":
		return calendarEnded
	}
	return calendarWaiting
}

// calendars runs the pass; active says a calendar partition is waiting or delivered (look again soon).
func (c *controller) calendars(ctx context.Context, cluster cc.Cluster, parts []cc.Partition, nodes slurmNodes) (bool, error) {
	var cals []cc.Partition
	for _, p := range parts {
		if p.Calendar != nil {
			cals = append(cals, p)
		}
	}
	if len(cals) == 0 || nodes.err != nil {
		return false, nodes.err
	}
	api, err := c.computeEnv(ctx, cluster)
	if err != nil {
		return true, err
	}
	active := false
	var errs []error
	for _, p := range cals {
		phase, err := c.calendarPartition(ctx, cluster, api, p, nodes)
		if err != nil {
			errs = append(errs, fmt.Errorf("calendar partition %s: %w", p.Name, err))
		}
		active = active || phase != calendarEnded
	}
	return active, errors.Join(errs...)
}

func (c *controller) calendarPartition(ctx context.Context, cluster cc.Cluster, api *healthCompute, p cc.Partition, nodes slurmNodes) (calendarPhase, error) {
	cal := *p.Calendar
	res, fr, err := power.DeliveredReservation(ctx, api.clients, cal)
	if fr == nil {
		return calendarWaiting, err
	}
	exists := false
	if res != "" {
		project, zone := firstNonEmpty(p.Project, api.project), firstNonEmpty(p.Zone, api.zone)
		_, gerr := api.clients.Reservations.Get(ctx, &computepb.GetReservationRequest{Project: project, Zone: zone, Reservation: res})
		if gerr = gcp.Classify(gerr); gerr != nil && !gcp.IsNotFound(gerr) {
			return calendarWaiting, gerr
		}
		exists = gerr == nil
	}
	if t := fr.GetTimeWindow().GetEndTime(); t != "" {
		cal.End = t
	}
	if t := fr.GetTimeWindow().GetStartTime(); t != "" {
		cal.Start = t
	}
	phase := phaseOf(fr, exists, cal.EndTime(), time.Now())
	all := partitionNodes(cluster.Name, p)
	cli := slurmCLI(cluster.Layout)
	switch phase {
	case calendarWaiting:
		return phase, c.calendarDrain(ctx, cli, p, all, nodes, cc.CalendarWaitingReason(cal))
	case calendarDelivered:
		return phase, c.calendarDeliver(ctx, cli, p, cluster.Name, all, nodes)
	case calendarEnding:
		if err := c.calendarDrain(ctx, cli, p, all, nodes, cc.CalendarEndingReason(cal)); err != nil {
			return phase, err
		}
		return phase, c.calendarNotify(ctx, cli, all)
	default:
		return phase, c.calendarEnd(ctx, cli, api, cluster, p, all, nodes, cc.CalendarEndedReason(cal))
	}
}

// calendarEnd takes the nodes of an ended reservation out for good: each one not yet down for it is set DOWN
// with the reason (its jobs died with the VM Compute stopped; DOWN clears them) and its VM, if any, deleted.
func (c *controller) calendarEnd(ctx context.Context, cli slurm.CLI, api *healthCompute, cluster cc.Cluster, p cc.Partition, all []string, nodes slurmNodes, reason string) error {
	var todo []string
	for _, n := range all {
		if st, known := nodes.state[n]; known && !(strings.HasPrefix(st, "down") && nodes.reason[n] == reason) {
			todo = append(todo, n)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	list := cc.CompressHostlist(todo)
	c.log.Info("calendar reservation ended: taking the nodes out and deleting their VMs", "partition", p.Name, "nodes", list)
	if err := cli.UpdateNodes(ctx, list, slurm.NodeUpdate{State: "DOWN", Reason: reason}); err != nil {
		return err
	}
	env := power.Env{Clients: api.clients, Project: api.project, Zone: api.zone, Cluster: cluster, Partitions: []cc.Partition{p}}
	return power.Suspend(ctx, env, list)
}

func partitionNodes(cluster string, p cc.Partition) []string {
	var out []string
	for _, list := range []string{p.StaticNodeNames(cluster), p.DynamicNodeNames(cluster)} {
		if list == "" {
			continue
		}
		if names, err := cc.ExpandHostlist(list); err == nil {
			out = append(out, names...)
		}
	}
	return out
}

// calendarDrain drains the nodes with reason (a node drained for another calendar reason takes this one); a node
// drained for anything else is left alone.
func (c *controller) calendarDrain(ctx context.Context, cli slurm.CLI, p cc.Partition, all []string, nodes slurmNodes, reason string) error {
	var todo []string
	for _, n := range all {
		st, known := nodes.state[n]
		if !known {
			continue
		}
		r := nodes.reason[n]
		drained := strings.HasPrefix(st, "drain")
		switch {
		case r == reason:
		case drained && !cc.IsCalendarReason(r):
		default:
			todo = append(todo, n)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	list := cc.CompressHostlist(todo)
	c.log.Info("calendar partition: draining", "partition", p.Name, "nodes", list, "reason", reason)
	return cli.UpdateNodes(ctx, list, slurm.NodeUpdate{State: "DRAIN", Reason: reason})
}

// calendarDeliver returns the nodes drained for the wait to service and powers up the static ones.
func (c *controller) calendarDeliver(ctx context.Context, cli slurm.CLI, p cc.Partition, cluster string, all []string, nodes slurmNodes) error {
	var resume []string
	for _, n := range all {
		if cc.IsCalendarReason(nodes.reason[n]) && strings.HasPrefix(nodes.state[n], "drain") {
			resume = append(resume, n)
		}
	}
	if len(resume) > 0 {
		list := cc.CompressHostlist(resume)
		c.log.Info("calendar reservation delivered: returning nodes to service", "partition", p.Name, "nodes", list)
		if err := cli.UpdateNodes(ctx, list, slurm.NodeUpdate{State: "RESUME"}); err != nil {
			return err
		}
	}
	static, err := cc.ExpandHostlist(p.StaticNodeNames(cluster))
	if err != nil || len(static) == 0 {
		return err
	}
	var up []string
	for _, n := range static {
		st := nodes.state[n]
		if strings.HasSuffix(st, "~") && !strings.HasPrefix(st, "down") {
			up = append(up, n)
		}
	}
	if len(up) == 0 {
		return nil
	}
	list := cc.CompressHostlist(up)
	c.log.Info("calendar reservation delivered: powering up the static nodes", "partition", p.Name, "nodes", list)
	return cli.UpdateNodes(ctx, list, slurm.NodeUpdate{State: "POWER_UP"})
}

// calendarNotify sends SIGUSR1 to the batch step of every job on the nodes, once per job: the stop notice the
// recipes checkpoint on.
func (c *controller) calendarNotify(ctx context.Context, cli slurm.CLI, all []string) error {
	if len(all) == 0 {
		return nil
	}
	jobs, err := cli.JobsOn(ctx, cc.CompressHostlist(all), "RUNNING")
	if err != nil {
		return err
	}
	if c.calendarSignalled == nil {
		c.calendarSignalled = map[int]bool{}
	}
	var errs []error
	for _, j := range jobs {
		if c.calendarSignalled[j.ID] {
			continue
		}
		if err := cli.SignalBatch(ctx, j.ID, "USR1"); err != nil {
			errs = append(errs, err)
			continue
		}
		c.calendarSignalled[j.ID] = true
		c.log.Info("calendar reservation ending: signalled the job to checkpoint", "job", j.ID)
	}
	return errors.Join(errs...)
}
