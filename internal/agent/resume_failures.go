package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/power"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// maxSlurmReason keeps a node's reason readable in sinfo and scontrol; the cloud's first words
// (the error code and message) are what matters.
const maxSlurmReason = 240

// ResumeFailed tells Slurm at once about the nodes a ResumeProgram run could not bring up (a
// stockout, a quota, a bad image): each is set DOWN with "resume failed: <the cloud's error>" as
// its reason, which makes slurmctld requeue the jobs waiting for it (slurm.conf(5),
// ResumeProgram: "it should set the node state to DOWN, which will result in a requeue of any job
// associated with the node"), rather than holding them CONFIGURING until ResumeTimeout. Then it
// publishes the partitions' failed-<partition> reports, so the provider's next refresh shows the
// failure without waiting for the controller's next pass. err is Resume's error; an error that
// names no node changes nothing.
func ResumeFailed(ctx context.Context, env power.Env, err error) error {
	var ne *power.NodesError
	if !errors.As(err, &ne) || len(ne.Reasons) == 0 {
		return nil
	}
	cluster := env.Cluster.WithDefaults()
	cli := slurmCLI(cluster.Layout)
	byReason := map[string][]string{}
	for n, r := range ne.Reasons {
		byReason[slurmReason(r)] = append(byReason[slurmReason(r)], n)
	}
	var errs []error
	for _, r := range slices.Sorted(maps.Keys(byReason)) {
		nodes := cc.CompressHostlist(byReason[r])
		if err := cli.UpdateNodes(ctx, nodes, slurm.NodeUpdate{State: "DOWN", Reason: r}); err != nil {
			errs = append(errs, fmt.Errorf("marking %s down: %w", nodes, err))
		}
	}
	if _, err := reportResumeFailures(ctx, NewMetadata(), cli, env.Partitions, cluster.Name, time.Now()); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// slurmReason is the reason a node whose resume failed gets: one line, clipped.
func slurmReason(cloudErr string) string {
	r := cc.ResumeFailedReason + strings.Join(strings.Fields(cloudErr), " ")
	if len(r) > maxSlurmReason {
		r = strings.ToValidUTF8(r[:maxSlurmReason-3], "") + "..."
	}
	return r
}

// resumeTimeoutReason is the reason slurmctld gives a node that did not register within
// ResumeTimeout. It replaces the reason of a node the ResumeProgram set DOWN (the node is still
// powering up as far as Slurm knows), so the report puts the cloud's error back.
const resumeTimeoutReason = "ResumeTimeout reached"

// guestAttributeReader reads back what this VM reported (*Metadata does).
type guestAttributeReader interface {
	GuestAttributes(ctx context.Context) (map[string]string, error)
}

// reportResumeFailures writes, for every partition that has dynamic nodes or a report out, the
// nodes Slurm holds DOWN after a failed resume: the ones the ResumeProgram set DOWN with the
// cloud's error, and the ones slurmctld set DOWN at ResumeTimeout (a VM that was created but never
// registered). At ResumeTimeout slurmctld overwrites the ResumeProgram's reason with its own; a
// node the previous report had with the cloud's error gets that reason back in Slurm (where
// administrators read it, sinfo -R) and keeps its entry. The report is deleted when there is no
// failure, and when its partition is no longer in parts (the whole desired configuration). It
// reads Slurm every time and writes without a cache: the ResumeProgram and the controller's pass
// both write these keys, and each must leave what Slurm says.
//
// A failed node Slurm has powered down (down~, past ResumeTimeout) for the partition's
// ResumeRetry as of now is returned to service (state=resume: idle~), so a job waiting for it
// makes Slurm try again, and leaves the report; retried names those nodes.
func reportResumeFailures(ctx context.Context, ga guestAttributes, cli slurm.CLI, parts []cc.Partition, cluster string, now time.Time) (retried []string, err error) {
	reasons, err := cli.NodeReasons(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the nodes' reasons from Slurm: %w", err)
	}
	var prior map[string]string
	if r, ok := ga.(guestAttributeReader); ok {
		prior, _ = r.GuestAttributes(ctx) // none known: the entries follow Slurm's reasons
	}
	var errs []error
	for _, p := range parts {
		before := map[string]cc.NodeFailure{}
		if old, err := cc.ParseFailures(prior[cc.FailedAttr(p.Name)]); err == nil {
			for _, f := range old {
				before[f.Node] = f
			}
		}
		var failed []cc.NodeFailure
		for _, n := range slices.Sorted(maps.Keys(reasons)) {
			r := reasons[n]
			// A node Slurm returned to service has no reason (or is not down).
			if _, _, ok := p.NodeIndex(cluster, n); !ok || !strings.HasPrefix(r.State, "down") {
				continue
			}
			f := cc.NodeFailure{Node: n, Reason: r.Reason}
			if !r.Since.IsZero() {
				f.Time = r.Since.UTC().Format(time.RFC3339)
			}
			switch {
			case strings.HasPrefix(r.Reason, cc.ResumeFailedReason):
			case r.Reason == resumeTimeoutReason:
				if old, ok := before[n]; ok && strings.HasPrefix(old.Reason, cc.ResumeFailedReason) {
					f = old
					if err := cli.UpdateNodes(ctx, n, slurm.NodeUpdate{State: "DOWN", Reason: old.Reason}); err != nil {
						errs = append(errs, fmt.Errorf("restoring the reason of %s: %w", n, err))
					}
				}
			default:
				continue
			}
			failed = append(failed, f)
		}
		back, err := retryFailed(ctx, cli, p.ResumeRetry(), failed, reasons, now)
		if err != nil {
			errs = append(errs, err)
		}
		retried = append(retried, back...)
		failed = slices.DeleteFunc(failed, func(f cc.NodeFailure) bool { return slices.Contains(back, f.Node) })
		key := cc.FailedAttr(p.Name)
		if len(failed) == 0 {
			if p.MaxDynamicNodes > 0 || len(before) > 0 {
				errs = append(errs, ga.DeleteGuestAttribute(ctx, key))
			}
			continue
		}
		errs = append(errs, ga.SetGuestAttribute(ctx, key, encodeFailures(failed)))
	}
	// A partition gone from the desired configuration loses its report, whoever wrote it (an
	// earlier run of this agent, the ResumeProgram): a partition made later under the same name
	// must not take the old nodes' failures for its own. The reports are found among the guest
	// attributes read above, so one left by a run before a restart goes too.
	desired := map[string]bool{}
	for _, p := range parts {
		desired[p.Name] = true
	}
	for _, k := range slices.Sorted(maps.Keys(prior)) {
		if name, ok := strings.CutPrefix(k, cc.GuestAttrFailedPrefix); ok && !desired[name] {
			errs = append(errs, ga.DeleteGuestAttribute(ctx, k))
		}
	}
	return retried, errors.Join(errs...)
}

// retryFailed returns to service, in one scontrol call, the failed nodes Slurm has held down and
// powered down (down~: past ResumeTimeout, the SuspendProgram has deleted any VM) for retry as
// of now. Only powered-down nodes go back: one still powering up (down#) would be handed jobs
// before its ResumeTimeout ends. retry zero returns none.
func retryFailed(ctx context.Context, cli slurm.CLI, retry time.Duration, failed []cc.NodeFailure, reasons map[string]slurm.NodeReason, now time.Time) ([]string, error) {
	if retry <= 0 {
		return nil, nil
	}
	var due []string
	for _, f := range failed {
		r := reasons[f.Node]
		if r.State == "down~" && !r.Since.IsZero() && now.Sub(r.Since) >= retry {
			due = append(due, f.Node)
		}
	}
	if len(due) == 0 {
		return nil, nil
	}
	nodes := cc.CompressHostlist(due)
	if err := cli.UpdateNodes(ctx, nodes, slurm.NodeUpdate{State: "RESUME"}); err != nil {
		return nil, fmt.Errorf("returning %s to service after a failed resume: %w", nodes, err)
	}
	return due, nil
}

// encodeFailures is the report: as many failures as fit a guest attribute, in node order.
func encodeFailures(failed []cc.NodeFailure) string {
	for n := len(failed); n > 0; n-- {
		b, _ := json.Marshal(failed[:n])
		if len(b) <= maxReportLen {
			return string(b)
		}
	}
	return "[]"
}
