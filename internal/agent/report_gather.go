package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/report"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// reportSources are where the HTML report reads from: the same sacct records and progress files
// as goodput, the controller's health records, and sinfo for the partitions' node counts.
type reportSources struct {
	cli slurm.CLI
	// runDirs: Slurm job id → the recipe job's run directory (the controller's job records).
	runDirs map[string]string
	// health is nil where the health records cannot be read; healthNote then says why.
	health     *healthState
	healthNote string
	cluster    string
}

// gatherReport builds the report's input over window (7d) ending now.
func gatherReport(ctx context.Context, src reportSources, window string, now time.Time) (report.Input, error) {
	d, err := ParseWindow(window)
	if err != nil {
		return report.Input{}, err
	}
	since := now.Add(-d)
	out, err := src.cli.Accounting(ctx, since, sacctFields)
	if err != nil {
		return report.Input{}, err
	}
	as, err := parseSacct(out)
	if err != nil {
		return report.Input{}, err
	}
	lost, program := progressIn(src.runDirs), programIn(src.runDirs)
	in := report.Input{Cluster: src.cluster, Window: window, Since: since, Generated: now}
	whole := computeGoodput(as, window, since, now, lost, program)
	in.Days = goodputByDay(as, window, since, now, lost, program)

	workDir := map[string]string{}
	for _, a := range as {
		workDir[a.jobID] = a.workDir
	}
	for id, dir := range src.runDirs {
		workDir[id] = dir
	}
	for _, j := range whole.Jobs {
		rj := report.Job{ID: j.JobID, Name: j.Name, Partition: j.Partition, State: j.State,
			Scheduling: j.Scheduling, Runtime: j.Runtime, Program: j.Program, HasProgram: j.ProgramSeconds > 0}
		// The run directory's curve is its newest Slurm job's, as its MFU is.
		if p, ok := readProgressFile(workDir[j.JobID]); ok && p.SlurmJobID == j.JobID {
			for _, h := range p.History {
				rj.Loss = append(rj.Loss, report.LossPoint{Step: h.Step, Loss: h.Loss})
			}
			rj.CheckpointSteps = p.CheckpointSteps
		}
		in.Jobs = append(in.Jobs, rj)
	}
	if whole.JobsOmitted > 0 {
		in.Notes = append(in.Notes, fmt.Sprintf("%d older jobs are counted in the goodput figures but not listed.", whole.JobsOmitted))
	}

	parts := map[string]*report.Partition{}
	part := func(name string) *report.Partition {
		if parts[name] == nil {
			parts[name] = &report.Partition{Name: name}
		}
		return parts[name]
	}
	for _, a := range as {
		if d := inWindow(a.start, a.end, since, now); d > 0 {
			part(a.partition).AllocatedNodeSeconds += d.Seconds() * float64(a.nodes)
		}
	}
	if src.health != nil {
		in.Repairs, in.Events = healthInWindow(src.health, since, now)
		for p, f := range repairFigures(src.health, since, now) {
			if p == "" {
				continue // a node the records know no partition of
			}
			part(p).Repairs, part(p).RepairNodeSeconds = f.Repairs, f.NodeSeconds
		}
	} else if src.healthNote != "" {
		in.Notes = append(in.Notes, src.healthNote)
	}
	var unknown []string
	for name, p := range parts {
		nodes, err := src.cli.PartitionNodes(ctx, name, "")
		if err != nil || len(nodes) == 0 {
			unknown = append(unknown, name)
			continue
		}
		p.Nodes = len(nodes)
		p.Utilisation = math.Min(1, p.AllocatedNodeSeconds/(float64(p.Nodes)*d.Seconds()))
		in.Partitions = append(in.Partitions, *p)
	}
	for _, name := range unknown {
		in.Partitions = append(in.Partitions, *parts[name])
	}
	sort.Slice(in.Partitions, func(i, j int) bool { return in.Partitions[i].Name < in.Partitions[j].Name })
	if len(unknown) > 0 {
		sort.Strings(unknown)
		in.Notes = append(in.Notes, fmt.Sprintf("sinfo lists no nodes for partition(s) %v (removed since?): their utilisation is unknown.", unknown))
	}
	return in, nil
}

// goodputByDay computes goodput per UTC day with goodput's own arithmetic: each job counts on
// the day its last attempt ended, a job still running or waiting on the last day.
func goodputByDay(as []attempt, window string, since, now time.Time, lost progressLost, program progressProgram) []report.Day {
	dayOf := func(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour) }
	last := map[string]time.Time{}
	for _, a := range as {
		end := a.end
		if end.IsZero() || end.After(now) {
			end = now
		}
		last[a.jobID] = dayOf(end) // sacct lists a job's attempts in order
	}
	byDay := map[time.Time][]attempt{}
	for _, a := range as {
		byDay[last[a.jobID]] = append(byDay[last[a.jobID]], a)
	}
	var days []report.Day
	for day := dayOf(since); !day.After(now); day = day.Add(24 * time.Hour) {
		d := report.Day{Date: day}
		if len(byDay[day]) > 0 {
			t := computeGoodput(byDay[day], window, since, now, lost, program).Total
			d.Jobs, d.Scheduling, d.Runtime = t.Jobs, t.Scheduling, t.Runtime
			d.Program, d.HasProgram = t.Program, t.ProgramSeconds > 0
		}
		days = append(days, d)
	}
	return days
}

// healthInWindow returns the repairs that overlap [since, now] and the events within it.
func healthInWindow(st *healthState, since, now time.Time) ([]report.Repair, []report.Event) {
	var rs []report.Repair
	for _, r := range append(append([]HealthRepair{}, st.Done...), st.InProgress...) {
		if inWindow(r.Started, r.Finished, since, now) <= 0 {
			continue
		}
		x := report.Repair{Node: r.Node, Check: r.Check, Action: r.Action, Result: r.Result, Start: r.Started, End: r.Finished}
		if n := st.Nodes[r.Node]; n != nil {
			x.Partition = n.Partition
		}
		if x.Start.Before(since) {
			x.Start = since // drawn from the window's start
		}
		rs = append(rs, x)
	}
	var es []report.Event
	for _, e := range st.Events {
		if !e.Time.Before(since) && !e.Time.After(now) {
			es = append(es, report.Event{Time: e.Time, Node: e.Node, Kind: e.Kind, Check: e.Check, Detail: e.Detail})
		}
	}
	return rs, es
}

// WriteReport writes the HTML report over window (e.g. "7d") from sacct, the recipes' progress
// files and, where this VM keeps them (the controller), the health records: the
// `hypercompute-agent report --since 7d` command.
func WriteReport(ctx context.Context, window string, w io.Writer) error {
	src := reportSources{cli: slurm.CLI{Run: runCommand}}
	st, err := readHealthState(filepath.Join(StateDir, "health-state.json"))
	switch {
	case err == nil:
		src.health = st
	case errors.Is(err, fs.ErrNotExist):
		src.healthNote = "No health records on this VM: the controller keeps them (its /report page, or this command run there, shows failures and repairs)."
	default:
		src.healthNote = "Health records not shown: " + err.Error()
	}
	in, err := gatherReport(ctx, src, window, time.Now())
	if err != nil {
		return err
	}
	return report.Render(w, in)
}

// WriteReportFile writes the report to path, replacing it only once the page is whole.
func WriteReportFile(ctx context.Context, window, path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".report-*.html")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := WriteReport(ctx, window, tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
