package agent

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// Options configure Run.
type Options struct {
	// Version is this build's version, reported as agent-version.
	Version string
	Log     *slog.Logger
	// Metadata defaults to NewMetadata().
	Metadata *Metadata
	// Ready, when set, is called once the agent runs (start's handshake).
	Ready func()
}

// Timing of the reconcile loop.
const (
	// recheckEvery re-runs the role's reconcile without a metadata change,
	// restarting a daemon that died.
	recheckEvery = 30 * time.Second
	// retryFirst and retryMax bound the backoff after a failed pass.
	retryFirst = 5 * time.Second
	retryMax   = 2 * time.Minute
	// keyWait bounds how long login and compute VMs wait for the
	// controller (munge key, Slurm files) before they report an error;
	// they keep waiting after that.
	keyWait = 15 * time.Minute
)

// StateDir is where the agent keeps its state and finds its binaries.
const StateDir = "/var/lib/hypercompute"

// Run is the agent daemon: it reports booting, then applies every metadata
// snapshot (and re-checks periodically) until ctx ends. Failures are
// reported and retried; Run returns only when ctx ends.
func Run(ctx context.Context, opts Options) error {
	md := opts.Metadata
	if md == nil {
		md = NewMetadata()
	}
	log := opts.Log
	exe, err := os.Executable()
	if err == nil {
		exe, _ = filepath.EvalSymlinks(exe)
	}
	h := &host{
		log:      log,
		md:       md,
		rep:      newReporter(md, log),
		sup:      newSupervisor(log),
		exe:      exe,
		stateDir: StateDir,
		keyWait:  keyWait,
	}
	if err := os.MkdirAll(h.stateDir, 0o755); err != nil {
		return err
	}
	log.Info("hypercompute-agent starting", "version", opts.Version, "pid", os.Getpid(), "systemd", systemdRunning())
	h.rep.set(ctx, cc.GuestAttrAgentVersion, opts.Version)
	h.rep.progress(ctx, cc.PhaseBooting)
	if opts.Ready != nil {
		opts.Ready()
	}

	snapshots := make(chan map[string]string, 1)
	go md.Watch(ctx, func(attrs map[string]string) {
		// Keep only the newest snapshot: a pass applies what is current.
		select {
		case <-snapshots:
		default:
		}
		snapshots <- attrs
	}, func(err error) { log.Warn("metadata", "error", err.Error()) })

	var (
		attrs   map[string]string
		current role
		roleOf  cc.Role
		backoff = retryFirst
	)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			log.Info("hypercompute-agent stopping")
			return nil
		case attrs = <-snapshots:
		case <-timer.C:
		}
		if attrs == nil {
			continue
		}
		err := func() (err error) {
			// A bug in one pass must not take the agent (and its reports)
			// down: it becomes the pass's error.
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("internal error in hypercompute-agent %s: %v", opts.Version, r)
				}
			}()
			n, err := NodeConfig(attrs)
			if err != nil {
				return err
			}
			if current == nil || roleOf != n.Role {
				current, roleOf = newRole(h, n.Role), n.Role
				log.Info("node config", "role", n.Role, "cluster", n.Cluster, "controller", n.Controller.Hostname)
			}
			err = current.reconcile(ctx, n, attrs)
			// Metrics follow the cluster's monitoring block on every VM, whatever the pass did.
			h.monitor(ctx, n, attrs)
			return err
		}()
		if ctx.Err() != nil {
			return nil
		}
		next := recheckEvery
		if p, ok := current.(interface{ nextCheck() time.Duration }); ok && err == nil {
			next = p.nextCheck()
		}
		if err != nil {
			h.rep.fail(ctx, err)
			next, backoff = backoff, min(backoff*2, retryMax)
		} else {
			backoff = retryFirst
		}
		timer.Reset(next)
	}
}

func newRole(h *host, r cc.Role) role {
	switch r {
	case cc.RoleController:
		return newController(h)
	case cc.RoleLogin:
		return &login{host: h}
	case cc.RoleCompute:
		return newCompute(h)
	}
	return unknownRole(r)
}

type unknownRole cc.Role

func (u unknownRole) reconcile(context.Context, cc.Node, map[string]string) error {
	return fmt.Errorf("node role %q is not one this agent knows", string(u))
}
