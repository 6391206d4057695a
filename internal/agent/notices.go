package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// Stop notices. Google warns a VM before its host stops it: instance/maintenance-event reads
// TERMINATE_ON_HOST_MAINTENANCE ahead of a maintenance stop (an hour ahead for GPU VMs, 60 s for others) and
// instance/preempted reads TRUE 30 s before a Spot VM is stopped. The agent on a compute node watches both
// (wait_for_change) and, on a stop notice, drains its own Slurm node with a reason naming the notice, so no new
// job lands there, and sends SIGUSR1 to the batch step of every job running on the node, which is the signal
// training scripts trap to checkpoint (the field's `--signal=B:USR1@120` convention). Once the notice is gone
// (the VM restarted on a new host, or was started again after a preemption) the agent returns the node to
// service — only if it is still drained for a notice, so an administrator's or a health check's drain stays.
//
// The agent does this itself rather than through the controller because the notice reaches only this VM and the
// window may be short; on a Slurm node the agent is root with the cluster's munge key, so scontrol and scancel
// from here are authorised as the controller's own would be. MIGRATE_ON_HOST_MAINTENANCE is a live migration that
// does not stop the VM: it is logged, nothing more.

// Metadata paths and the values Google serves there.
const (
	maintenanceEventPath = "instance/maintenance-event"
	preemptedPath        = "instance/preempted"

	maintenanceMigrate   = "MIGRATE_ON_HOST_MAINTENANCE"
	maintenanceTerminate = "TERMINATE_ON_HOST_MAINTENANCE"
)

// noticeDrainPrefix starts the Slurm reason of every drain the agent makes for a stop notice.
const noticeDrainPrefix = "hypercompute: stop notice: "

// notice is what the host has announced to this VM.
type notice struct {
	Maintenance string // instance/maintenance-event
	Preempted   bool   // instance/preempted
}

// stopping reports whether the VM is about to be stopped.
func (n notice) stopping() bool { return n.Maintenance == maintenanceTerminate || n.Preempted }

// reason is the drain reason naming the notice.
func (n notice) reason() string {
	if n.Preempted {
		return noticeDrainPrefix + "Spot preemption (instance/preempted=TRUE)"
	}
	return noticeDrainPrefix + "host maintenance (instance/maintenance-event=" + n.Maintenance + ")"
}

// watchNotices calls fn with the host's notice now and after every change of instance/maintenance-event or
// instance/preempted, until ctx ends. Errors go to onErr and are retried.
func (m *Metadata) watchNotices(ctx context.Context, fn func(notice), onErr func(error)) {
	var mu sync.Mutex
	var cur notice
	var seen [2]bool
	set := func(i int, apply func(*notice)) {
		mu.Lock()
		defer mu.Unlock()
		apply(&cur)
		seen[i] = true
		if seen[0] && seen[1] { // one answer of each before the first call
			fn(cur)
		}
	}
	var wg sync.WaitGroup
	for i, path := range []string{maintenanceEventPath, preemptedPath} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				err := m.client.SubscribeWithContext(ctx, path, func(_ context.Context, v string, ok bool) error {
					if !ok {
						return errors.New(path + " vanished")
					}
					v = strings.TrimSpace(v)
					set(i, func(n *notice) {
						if path == preemptedPath {
							n.Preempted = v == "TRUE"
						} else {
							n.Maintenance = v
						}
					})
					return nil
				})
				if ctx.Err() != nil {
					return
				}
				onErr(fmt.Errorf("watching %s: %w", path, err))
				if sleepCtx(ctx, 2*time.Second) != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
}

// slurmNode acts on this VM's own Slurm node with the Slurm client commands (slurm.CLI).
type slurmNode struct {
	name string
	// conf lists where slurm.conf may be (configless slurmd caches what it fetched); the first that exists wins.
	conf []string
	log  *slog.Logger
	// run runs the Slurm commands; nil is runCommand (tests replace it).
	run slurm.Runner
}

// cli runs the commands with the first slurm.conf that exists, or the environment's if none does.
func (s slurmNode) cli() slurm.CLI {
	cli := slurm.CLI{Run: s.run}
	if cli.Run == nil {
		cli.Run = runCommand
	}
	for _, c := range s.conf {
		if _, err := os.Stat(c); err == nil {
			cli.Conf = c
			break
		}
	}
	return cli
}

// apply brings the node in line with the notice: drained and its jobs told to checkpoint while the VM is
// about to stop; back in service once it is not, if the agent's own notice drain still holds it.
func (s slurmNode) apply(ctx context.Context, n notice) error {
	if n.Maintenance == maintenanceMigrate {
		s.log.Info("host maintenance notice: the VM will be live-migrated; jobs keep running", "node", s.name)
	}
	if !n.stopping() {
		return s.resumeFromNotice(ctx)
	}
	cli := s.cli()
	if err := cli.UpdateNodes(ctx, s.name, slurm.NodeUpdate{State: "DRAIN", Reason: n.reason()}); err != nil {
		return fmt.Errorf("draining %s for a stop notice: %w", s.name, err)
	}
	running, err := cli.JobsOn(ctx, s.name, "RUNNING")
	if err != nil {
		return fmt.Errorf("listing the jobs on %s: %w", s.name, err)
	}
	jobs := slurm.JobIDs(running)
	var errs []error
	ids := make([]string, len(jobs))
	for i, id := range jobs {
		ids[i] = strconv.Itoa(id)
		// The batch script only, which traps the signal and checkpoints; its steps keep running until the
		// script acts.
		if err := cli.SignalBatch(ctx, id, "USR1"); err != nil {
			errs = append(errs, fmt.Errorf("telling job %d to checkpoint: %w", id, err))
		}
	}
	s.log.Warn("stop notice: node drained, jobs told to checkpoint", "node", s.name, "reason", n.reason(), "jobs", strings.Join(ids, ","))
	return errors.Join(errs...)
}

func (s slurmNode) resumeFromNotice(ctx context.Context) error {
	cli := s.cli()
	nodes, err := cli.Nodes(ctx, s.name)
	if err != nil {
		return fmt.Errorf("reading %s's drain reason: %w", s.name, err)
	}
	if !strings.HasPrefix(nodes[s.name].Reason, noticeDrainPrefix) {
		return nil
	}
	if err := cli.UpdateNodes(ctx, s.name, slurm.NodeUpdate{State: "RESUME"}); err != nil {
		return fmt.Errorf("returning %s to service after its stop notice: %w", s.name, err)
	}
	s.log.Info("stop notice over: node back in service", "node", s.name)
	return nil
}

// followNotices applies every notice the metadata server posts to the node, retrying a failed application
// until it succeeds or a newer notice replaces it. It returns when ctx ends.
func followNotices(ctx context.Context, md *Metadata, node interface {
	apply(context.Context, notice) error
}, log *slog.Logger, retry time.Duration) {
	latest := make(chan notice, 1)
	go md.watchNotices(ctx, func(n notice) {
		select {
		case <-latest:
		default:
		}
		latest <- n
	}, func(err error) { log.Warn("metadata", "error", err.Error()) })
	var (
		cur     notice
		pending bool
	)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case cur = <-latest:
			pending = true
		case <-timer.C:
		}
		if !pending {
			continue
		}
		if err := node.apply(ctx, cur); err != nil {
			log.Warn("acting on the host's notice", "error", err.Error())
			timer.Reset(retry)
			continue
		}
		pending = false
	}
}

// noticeFollower starts followNotices once per agent, when the node's slurmd first runs.
type noticeFollower struct{ once sync.Once }

func (f *noticeFollower) start(ctx context.Context, h *host, name string, l cc.Layout) {
	f.once.Do(func() {
		node := slurmNode{name: name, log: h.log, conf: slurmdConfCaches(l)}
		go followNotices(ctx, h.md, node, h.log, 5*time.Second)
	})
}

// slurmdConfCaches are where configless slurmd keeps the configuration it fetched: its spool directory, linked
// from /run/slurm/conf for the node's client commands.
func slurmdConfCaches(l cc.Layout) []string {
	return []string{filepath.Join(l.SlurmdSpoolDir, "conf-cache", cc.SlurmConfFile), "/run/slurm/conf/" + cc.SlurmConfFile}
}
