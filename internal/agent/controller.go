package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurmcheck"
)

// jwtKeySize: slurmctld signs and checks HS256 tokens with this key.
const jwtKeySize = 64

// controllerState is what the controller's agent remembers across
// restarts: what slurmctld runs with and what it refused.
type controllerState struct {
	Applied  string `json:"applied_hash,omitempty"`
	Rejected string `json:"rejected_hash,omitempty"`
	// RejectedText is slurmctld's text for Rejected, reported again after
	// a restart of the agent.
	RejectedText string `json:"rejected_text,omitempty"`
	// Files are the paths the applied configuration wrote, so files a
	// later configuration drops are removed.
	Files []string `json:"files,omitempty"`
	// Rewrite is the cluster's Rewrite generation last honoured (controller_drift.go).
	Rewrite int `json:"rewrite,omitempty"`
}

// validator checks a configuration before it reaches slurmctld; tests may
// replace it.
type validator func(ctx context.Context, conf, gres, cgroup []byte) error

func slurmctldValidator(ctx context.Context, conf, gres, cgroup []byte) error {
	// A generous timeout: slurmctld needs well under a second, but a
	// loaded VM must not turn a good configuration into an error.
	_, err := slurmcheck.Validator{StrictPrograms: true, Timeout: 30 * time.Second}.Validate(ctx, conf, gres, cgroup)
	return err
}

// controller runs slurmctld and slurmrestd from the cluster's metadata.
type controller struct {
	*host
	validate validator
	// drainPending: a scale-down waits for jobs to leave its nodes.
	drainPending bool
	// registering: a static node has not registered in Slurm yet.
	registering bool
	// registeredReported are the partitions with a registered-<partition>
	// report out.
	registeredReported map[string]bool
	// sched drives Slurm for recipe jobs (nil: sbatch, scontrol, scancel
	// and slurmrestd on this VM); jobsActive: one is queued or running.
	sched      jobScheduler
	jobsActive bool
	// Health policies (health_controller.go): the policies and plan applied, repairs running.
	policies     []cc.HealthPolicy
	plan         cc.HealthPlan
	healthAPI    *healthCompute
	healthActive bool
	// reportedPolicies: the policies with a health-policy-<name> report out.
	reportedPolicies map[string]bool
	reportedNodes    map[string]string
	// acct: the accounting setup done (accounting.go).
	acct accountingState
	// prometheusListen is where the Prometheus this agent started listens (controller_prometheus.go).
	prometheusListen string
	// rollRequeued are jobs requeued off nodes being replaced, still to release (drain_requeue.go).
	rollRequeued map[int]bool
	// calendarActive: a calendar partition waits for or holds its capacity (calendar.go);
	// calendarSignalled are the jobs told their calendar capacity ends.
	calendarActive    bool
	calendarSignalled map[int]bool
	// report: the HTML report's listener (report_serve.go).
	report reportServer
}

func newController(h *host) *controller {
	return &controller{host: h, validate: slurmctldValidator}
}

func (c *controller) statePath() string { return filepath.Join(c.stateDir, "controller-state.json") }

func (c *controller) loadState() controllerState {
	var s controllerState
	if b, err := os.ReadFile(c.statePath()); err == nil {
		if err := json.Unmarshal(b, &s); err != nil {
			c.log.Warn("ignoring unreadable agent state", "path", c.statePath(), "error", err.Error())
			return controllerState{}
		}
	}
	return s
}

func (c *controller) saveState(s controllerState) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = writeFile(c.statePath(), append(b, '\n'), 0o600, rootAccount)
	return err
}

func (c *controller) reconcile(ctx context.Context, n cc.Node, attrs map[string]string) error {
	if err := c.mountShared(ctx, n); err != nil {
		return err
	}
	c.rep.progress(ctx, cc.PhaseConfiguring)
	key, err := ensureSharedMungeKey(n.Mounts.SharedMungeKey())
	if err != nil {
		return err
	}
	if err := startMunge(ctx, c.sup, key); err != nil {
		return err
	}
	cluster, parts, err := DesiredConfig(attrs)
	if err != nil {
		return err
	}
	policies, err := cc.DecodeHealthPolicies(attrs)
	if err != nil {
		return err
	}
	// What the provider waits for is the hash of this same rendering (cc.AppliedHash).
	desired, err := cc.Render(cluster, parts, policies)
	if err != nil {
		return err
	}
	if err := c.withHealth(desired, policies); err != nil {
		return err
	}
	cluster, files, hash := desired.Cluster, desired.Files, desired.Hash()
	l := cluster.Layout
	slurm, err := lookupAccount(l.SlurmUser, "slurm")
	if err != nil {
		return err
	}
	if err := c.prepareHost(cluster, slurm); err != nil {
		return err
	}
	// slurmctld refuses to start with accounting whose slurmdbd is down.
	if err := c.accounting(ctx, cluster, slurm, files[path.Join(l.ConfDir, cc.SlurmConfFile)]); err != nil {
		return err
	}
	st := c.loadState()
	running := c.sup.running(slurmctldDaemon(l))

	drifting := false
	switch {
	case running && hash == st.Applied:
		// Nothing new: check that the files still hold it, and keep the
		// published copy in place. A refused configuration that was
		// reverted is no longer pending.
		if st, drifting, err = c.checkDrift(ctx, cluster, files, hash, st); err != nil {
			return err
		}
		if err := c.publish(cluster, files, st.Files); err != nil {
			return err
		}
		if st.Rejected != "" {
			st.Rejected, st.RejectedText = "", ""
			if err := c.saveState(st); err != nil {
				return err
			}
		}
	case hash == st.Rejected:
		// Already refused; slurmctld keeps what it runs.
		if err := c.reportRejected(ctx, st, running); err != nil {
			return err
		}
	default:
		if st, err = c.apply(ctx, cluster, files, hash, st, running); err != nil {
			return err
		}
		c.log.Info("configuration applied", "hash", hash, "partitions", len(parts))
		c.rep.clear(ctx, cc.GuestAttrConfigDrift)
	}
	if !drifting && st.Rewrite != cluster.Rewrite && st.Applied == hash {
		// A rewrite asked for while nothing drifted is honoured by what was written.
		st.Rewrite = cluster.Rewrite
		if err := c.saveState(st); err != nil {
			return err
		}
	}

	// slurmctld runs the applied configuration.
	if err := c.ensureRestd(ctx, cluster); err != nil {
		return err
	}
	// Registration is reported before the config hash, so a provider that
	// sees the hash never reads a report from before this configuration.
	nodes := readSlurmNodes(ctx, l)
	if c.registering, err = c.registrations(ctx, cluster, parts, nodes); err != nil {
		// Not a reason to fail the pass: slurmctld serves; look again soon.
		c.log.Warn("could not report node registration", "error", err.Error())
		c.registering = true
	}
	// Nodes whose resume failed, as Slurm holds them (resume_failures.go).
	retried, err := reportResumeFailures(ctx, c.rep.ga, slurmCLI(l), parts, cluster.Name, time.Now())
	if len(retried) > 0 {
		c.log.Info("returned nodes to service after a failed resume", "nodes", cc.CompressHostlist(retried))
	}
	if err != nil {
		c.log.Warn("could not report resume failures", "error", err.Error())
	}
	// A stale error goes before the new hash is reported, so whoever sees the
	// hash never reads the error of a configuration since replaced.
	if st.Rejected == "" {
		c.rep.clear(ctx, cc.GuestAttrConfigError)
	}
	if st.Applied != "" {
		c.rep.set(ctx, cc.GuestAttrConfigHash, st.Applied)
	}
	// Monitoring never fails the pass: Slurm serves whatever Prometheus does.
	if err := c.prometheus(ctx, cluster, parts, nodes); err != nil {
		c.log.Warn("monitoring", "error", err.Error())
	}
	if c.drainPending, err = c.drains(ctx, l, parts, nodes); err != nil {
		return err
	}
	if c.calendarActive, err = c.calendars(ctx, cluster, parts, nodes); err != nil {
		// The next pass tries again; slurmctld serves meanwhile.
		c.log.Warn("calendar partitions", "error", err.Error())
	}
	if c.sched == nil {
		c.sched = newSlurmJobs(l)
	}
	c.jobsActive = c.jobs(ctx, c.sched, attrs, nodes)
	if c.healthActive, err = c.healthPass(ctx, cluster, parts, nodes); err != nil {
		c.log.Warn("health repairs", "error", err.Error())
	}
	c.rep.ready(ctx)
	return nil
}

// apply validates the rendered files and, unless slurmctld refuses them,
// writes them and makes slurmctld use them: started when it is not
// running, reconfigured when it is. A refused configuration is recorded
// and reported; the error is nil when slurmctld keeps serving an earlier
// one.
func (c *controller) apply(ctx context.Context, cluster cc.Cluster, files map[string][]byte, hash string, st controllerState, running bool) (controllerState, error) {
	l := cluster.Layout
	conf := files[path.Join(l.ConfDir, cc.SlurmConfFile)]
	gres := files[path.Join(l.ConfDir, cc.GresConfFile)]
	cgroup := files[path.Join(l.ConfDir, cc.CgroupConfFile)]
	if err := c.validate(ctx, conf, gres, cgroup); err != nil {
		var rejected *slurmcheck.RejectedError
		if !errors.As(err, &rejected) {
			return st, fmt.Errorf("validating the Slurm configuration %s: %w", short(hash), err)
		}
		st.Rejected, st.RejectedText = hash, strings.Join(rejected.Messages, "; ")
		if err := c.saveState(st); err != nil {
			return st, err
		}
		c.log.Error("slurmctld rejected the configuration; it was not applied", "hash", hash, "slurmctld", st.RejectedText, "running_hash", st.Applied)
		return st, c.reportRejected(ctx, st, running)
	}
	previousConf, _ := os.ReadFile(path.Join(l.ConfDir, cc.SlurmConfFile))
	if err := c.writeConfig(files, st.Files); err != nil {
		return st, err
	}
	if running && (!sameNodeDefinitions(previousConf, conf) || accountingRestart(previousConf, conf)) {
		// Slurm 22.05 cannot add or remove nodes on reconfigure ("MaxNodeCount has changed
		// during reconfig, slurmctld must be restarted" is fatal), so a change to the node set
		// restarts slurmctld. Jobs keep running: their state is in StateSaveLocation and the
		// slurmd on the nodes are untouched.
		if err := c.restartSlurmctld(ctx, l); err != nil {
			return st, err
		}
	} else if running {
		if err := c.reconfigure(ctx, l); err != nil {
			return st, err
		}
	} else if err := c.startSlurmctld(ctx, l); err != nil {
		return st, err
	}
	if err := c.publish(cluster, files, st.Files); err != nil {
		return st, err
	}
	st = controllerState{Applied: hash, Files: sortedPaths(files)}
	return st, c.saveState(st)
}

// reportRejected reports a refused configuration. A controller that runs
// an earlier configuration stays ready with it; one that never ran has
// nothing to serve and fails with slurmctld's text.
func (c *controller) reportRejected(ctx context.Context, st controllerState, running bool) error {
	c.rep.set(ctx, cc.GuestAttrConfigError, st.Rejected+" "+st.RejectedText)
	if !running {
		return fmt.Errorf("slurmctld rejected the configuration %s, so it was not started: %s", short(st.Rejected), st.RejectedText)
	}
	return nil
}

// nextCheck is how soon the controller wants to look again without a
// metadata change.
func (c *controller) nextCheck() time.Duration {
	next := recheckEvery
	if c.drainPending {
		next = min(next, drainPending)
	}
	if c.registering {
		next = min(next, registrationPending)
	}
	if c.jobsActive {
		next = min(next, jobsPending)
	}
	if len(c.policies) > 0 {
		next = min(next, healthWatch)
	}
	if c.healthActive {
		next = min(next, repairPending)
	}
	if c.acct.applied != "" {
		next = min(next, goodputEvery)
	}
	if c.calendarActive {
		next = min(next, calendarWatch)
	}
	return next
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
