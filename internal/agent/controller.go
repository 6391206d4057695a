package agent

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
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
	cluster = cluster.WithDefaults()
	files, err := cc.RenderFiles(cluster, parts)
	if err != nil {
		return err
	}
	policies, err := healthPolicies(attrs)
	if err != nil {
		return err
	}
	if cluster, files, err = c.withHealth(cluster, parts, policies, files); err != nil {
		return err
	}
	hash := cc.HashFiles(files)
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

	switch {
	case running && hash == st.Applied:
		// Nothing new; keep the published copy in place. A refused
		// configuration that was reverted is no longer pending.
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
	if st.Applied != "" {
		c.rep.set(ctx, cc.GuestAttrConfigHash, st.Applied)
	}
	if st.Rejected == "" {
		c.rep.clear(ctx, cc.GuestAttrConfigError)
	}
	if c.drainPending, err = c.drains(ctx, l, parts, nodes); err != nil {
		return err
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
	return next
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

// prepareHost creates what slurmctld and its programs need before any
// configuration is validated: directories with the owners Slurm checks,
// the JWT key (first boot only) and the power-saving programs, which the
// validator insists exist.
func (c *controller) prepareHost(cluster cc.Cluster, slurm account) error {
	l := cluster.Layout
	dirs := []struct {
		path  string
		mode  os.FileMode
		owner account
	}{
		{l.ConfDir, 0o755, rootAccount},
		{l.StateSaveLocation, 0o700, slurm},
		{path.Dir(l.SlurmctldLogFile), 0o755, slurm},
		{path.Dir(l.SlurmctldPidFile), 0o755, slurm},
		{l.ProgramDir, 0o755, rootAccount},
		{path.Dir(l.AgentBinary), 0o755, rootAccount},
	}
	for _, d := range dirs {
		if err := ensureDir(d.path, d.mode, d.owner); err != nil {
			return err
		}
	}
	if err := ensureJWTKey(l.JWTKeyFile, slurm); err != nil {
		return err
	}
	if err := installAgentBinary(c.exe, l.AgentBinary); err != nil {
		return err
	}
	for p, body := range cc.ProgramWrappers(cluster) {
		if _, err := writeFile(p, body, 0o755, rootAccount); err != nil {
			return err
		}
	}
	return nil
}

// ensureJWTKey generates the key slurmctld verifies slurmrestd's tokens
// with, once: it stays on the controller's boot disk, readable by
// SlurmUser only.
func ensureJWTKey(p string, slurm account) error {
	if fi, err := os.Stat(p); err == nil && fi.Size() >= 32 {
		return fixMeta(p, 0o600, slurm)
	}
	key := make([]byte, jwtKeySize)
	if _, err := rand.Read(key); err != nil {
		return fmt.Errorf("generating the JWT key: %w", err)
	}
	if _, err := writeFile(p, key, 0o600, slurm); err != nil {
		return fmt.Errorf("writing the JWT key: %w", err)
	}
	return nil
}

// installAgentBinary points Layout.AgentBinary (what the power-saving
// wrappers exec) at this agent build.
func installAgentBinary(exe, target string) error {
	if exe == "" || exe == target {
		return nil
	}
	if cur, err := os.Readlink(target); err == nil && cur == exe {
		return nil
	}
	tmp := target + ".new"
	os.Remove(tmp)
	if err := os.Symlink(exe, tmp); err != nil {
		return fmt.Errorf("installing the agent at %s: %w", target, err)
	}
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("installing the agent at %s: %w", target, err)
	}
	return nil
}

// writeConfig writes the rendered files and removes those the previous
// configuration had and this one does not (a dropped prolog).
func (c *controller) writeConfig(files map[string][]byte, previous []string) error {
	for _, p := range sortedPaths(files) {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if _, err := writeFile(p, files[p], mode, rootAccount); err != nil {
			return err
		}
	}
	for _, p := range previous {
		if _, keep := files[p]; !keep {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	return nil
}

// sharedName is where a rendered file is published under
// /home/.hypercompute/slurm: configuration files by name, scripts under
// prolog.d/ and epilog.d/ (compute agents install them from there).
func sharedName(l cc.Layout, p string) string {
	switch path.Dir(p) {
	case l.PrologDir:
		return path.Join("prolog.d", path.Base(p))
	case l.EpilogDir:
		return path.Join("epilog.d", path.Base(p))
	}
	return path.Base(p)
}

// publish copies the applied files to the cluster's shared directory for
// login and compute VMs.
func (c *controller) publish(cluster cc.Cluster, files map[string][]byte, previous []string) error {
	dir := path.Join(cluster.Mounts.SharedDir(), cc.SharedSlurmDir)
	if err := ensureDir(cluster.Mounts.SharedDir(), 0o755, rootAccount); err != nil {
		return err
	}
	if err := ensureDir(dir, 0o755, rootAccount); err != nil {
		return err
	}
	l := cluster.Layout
	want := map[string]bool{}
	for _, p := range sortedPaths(files) {
		name := sharedName(l, p)
		want[name] = true
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if _, err := writeFile(path.Join(dir, name), files[p], mode, rootAccount); err != nil {
			return fmt.Errorf("publishing the Slurm configuration for login and compute VMs: %w", err)
		}
	}
	for _, p := range previous {
		if name := sharedName(l, p); !want[name] {
			os.Remove(path.Join(dir, name))
		}
	}
	return nil
}

func sortedPaths(files map[string][]byte) []string {
	out := make([]string, 0, len(files))
	for p := range files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func slurmctldDaemon(l cc.Layout) daemon {
	return daemon{
		Name: "slurmctld",
		Argv: []string{"/usr/sbin/slurmctld", "-D", "-f", path.Join(l.ConfDir, cc.SlurmConfFile)},
		User: l.SlurmUser,
	}
}

func slurmEnv(l cc.Layout) []string {
	return []string{"SLURM_CONF=" + path.Join(l.ConfDir, cc.SlurmConfFile)}
}

// startSlurmctld starts slurmctld and waits until it answers.
func (c *controller) startSlurmctld(ctx context.Context, l cc.Layout) error {
	d := slurmctldDaemon(l)
	if err := c.sup.start(ctx, d); err != nil {
		return fmt.Errorf("starting slurmctld: %w; %s", err, slurmctldLogTail(l))
	}
	return c.waitSlurmctld(ctx, l, 60*time.Second)
}

// restartSlurmctld restarts slurmctld on the new files, for changes a reconfigure cannot take.
func (c *controller) restartSlurmctld(ctx context.Context, l cc.Layout) error {
	c.log.Info("the node set changed: restarting slurmctld instead of reconfiguring")
	if err := c.sup.restart(ctx, slurmctldDaemon(l)); err != nil {
		return fmt.Errorf("restarting slurmctld: %w; %s", err, slurmctldLogTail(l))
	}
	return c.waitSlurmctld(ctx, l, 60*time.Second)
}

// sameNodeDefinitions reports whether two slurm.conf files define the same nodes (NodeName and
// NodeSet lines), the one part of a configuration Slurm 22.05 cannot reconfigure in place.
func sameNodeDefinitions(a, b []byte) bool {
	nodes := func(conf []byte) []string {
		var out []string
		for _, line := range strings.Split(string(conf), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "NodeName=") || strings.HasPrefix(line, "NodeSet=") {
				out = append(out, line)
			}
		}
		return out
	}
	return slices.Equal(nodes(a), nodes(b))
}

// reconfigure makes the running slurmctld read the new files. A
// reconfigure that kills slurmctld (which validation exists to prevent) is
// reported with slurmctld's last words.
func (c *controller) reconfigure(ctx context.Context, l cc.Layout) error {
	if err := slurmCLI(l).Reconfigure(ctx); err != nil {
		return fmt.Errorf("scontrol reconfigure failed: %w; %s", err, slurmctldLogTail(l))
	}
	return c.waitSlurmctld(ctx, l, 30*time.Second)
}

func (c *controller) waitSlurmctld(ctx context.Context, l cc.Layout, timeout time.Duration) error {
	d := slurmctldDaemon(l)
	deadline := time.Now().Add(timeout)
	for {
		out, err := slurmCLI(l).Ping(ctx)
		if err == nil && strings.Contains(out, "is UP") {
			return nil
		}
		if !c.sup.running(d) {
			return fmt.Errorf("slurmctld stopped: %s; %s", slurmctldLogTail(l), c.sup.describe(d))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("slurmctld did not answer scontrol ping within %s (last answer: %s); %s", timeout, firstNonEmpty(out, errString(err)), slurmctldLogTail(l))
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

func slurmctldLogTail(l cc.Layout) string {
	b, err := os.ReadFile(l.SlurmctldLogFile)
	if err != nil || len(b) == 0 {
		return "slurmctld's log " + l.SlurmctldLogFile + " is empty"
	}
	return "slurmctld's log ends: " + lastLines(string(b), 5)
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
