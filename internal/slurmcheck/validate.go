package slurmcheck

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// ErrUnavailable wraps the reason validation cannot run on this machine.
var ErrUnavailable = errors.New("slurmctld validation is unavailable")

// RejectedError is a configuration slurmctld refused, or loaded wrongly.
// Messages are slurmctld's own lines ("error: ...", "fatal: ...") and the
// validator's findings, in order; the agent reports them verbatim.
type RejectedError struct {
	Messages []string
	// ExitCode is slurmctld's exit status, or -1 when it kept running and
	// the problem was found in what it loaded.
	ExitCode int
}

func (e *RejectedError) Error() string {
	return "slurmctld rejected the configuration: " + strings.Join(e.Messages, "; ")
}

// Result is what slurmctld loaded.
type Result struct {
	Partitions []Partition
	Nodes      []Node
	Sinfo      []SinfoRow
	// Log is slurmctld's output, sandbox paths shown as in the caller's
	// files where possible.
	Log string
	// Warnings are error lines that did not stop slurmctld.
	Warnings []string
	// Stubbed lists "Key=path" programs that do not exist on this host and
	// were replaced by a stub for the validation.
	Stubbed []string
	// Config is `scontrol show config` as a map (SuspendExcNodes, ...).
	Config map[string]string
	// Raw outputs of the commands, for assertions this type lacks.
	ScontrolPartitions, ScontrolNodes, SinfoOutput string
}

// Partition returns the loaded partition with that name.
func (r *Result) Partition(name string) (Partition, bool) {
	for _, p := range r.Partitions {
		if p.Name == name {
			return p, true
		}
	}
	return Partition{}, false
}

// Node returns the loaded node with that name.
func (r *Result) Node(name string) (Node, bool) {
	i, found := slices.BinarySearchFunc(r.Nodes, name, func(n Node, name string) int { return strings.Compare(n.Name, name) })
	if !found {
		return Node{}, false
	}
	return r.Nodes[i], true
}

// NodesOf returns the loaded nodes of a partition.
func (r *Result) NodesOf(partition string) []Node {
	var out []Node
	for _, n := range r.Nodes {
		if slices.Contains(n.Partitions, partition) {
			out = append(out, n)
		}
	}
	return out
}

// Validator validates configurations with a throw-away slurmctld.
type Validator struct {
	// Timeout bounds how long slurmctld may take to become the primary
	// controller; 0 means 4 s (it takes well under a second).
	Timeout time.Duration
	// StrictPrograms keeps program paths as given, so a power-saving
	// program missing on this host fails the validation. Off, such
	// programs are replaced by a stub and listed in Result.Stubbed, which
	// lets a configuration rendered for another host validate here.
	StrictPrograms bool
	// TempDir is where sandboxes are created; empty means os.TempDir().
	TempDir string
}

// Validate validates with the default Validator.
func Validate(ctx context.Context, conf, gres, cgroup []byte) (*Result, error) {
	return Validator{}.Validate(ctx, conf, gres, cgroup)
}

// Validate loads conf (with gres.conf and cgroup.conf when not nil) into a
// private slurmctld and returns what it loaded. A refused configuration is a
// *RejectedError (with the Result so far, Log included); other errors mean
// the validation itself could not run.
func (v Validator) Validate(ctx context.Context, conf, gres, cgroup []byte) (*Result, error) {
	if err := Available(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	timeout := v.Timeout
	if timeout == 0 {
		timeout = 4 * time.Second
	}
	sb, err := newSandbox(v.TempDir)
	if sb.dir != "" {
		defer os.RemoveAll(sb.dir)
	}
	if err != nil {
		return nil, fmt.Errorf("preparing the validation directory: %w", err)
	}
	munge, err := startMunge(sb)
	if err != nil {
		return nil, err
	}
	defer munge.stop(time.Second)

	rewritten, stubbed := rewriteConf(conf, sb, v.StrictPrograms)
	files := map[string][]byte{"slurm.conf": rewritten}
	if gres != nil {
		files["gres.conf"] = gres
	}
	if cgroup != nil {
		files["cgroup.conf"] = cgroup
	}
	if err := writeFiles(sb, files); err != nil {
		return nil, err
	}
	env := append(os.Environ(), "SLURM_CONF="+sb.confPath)
	ctld, err := startDaemon(env, "slurmctld", "-D", "-i", "-f", sb.confPath)
	if err != nil {
		return nil, err
	}
	defer ctld.stop(0)

	res := &Result{Stubbed: stubbed}
	clean := strings.NewReplacer(sb.confPath, "slurm.conf", sb.dir, "<sandbox>")
	log := func() string { return clean.Replace(ctld.out.String()) }

	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(ctld.out.String(), "Running as primary controller") {
		select {
		case <-ctld.done:
			res.Log = log()
			code := ctld.cmd.ProcessState.ExitCode()
			msgs := errorLines(res.Log, true)
			if len(msgs) == 0 {
				msgs = []string{fmt.Sprintf("slurmctld exited with status %d before it became the controller: %s", code, lastLines(res.Log, 5))}
			}
			return res, &RejectedError{Messages: msgs, ExitCode: code}
		case <-deadline.C:
			res.Log = log()
			return res, fmt.Errorf("slurmctld did not become the primary controller within %s; its output:\n%s", timeout, lastLines(res.Log, 20))
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}

	query := func(args ...string) (string, error) {
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		cmd := exec.CommandContext(qctx, args[0], args[1:]...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return string(out), nil
	}
	if res.ScontrolPartitions, err = query("scontrol", "-o", "show", "partition"); err != nil {
		return nil, err
	}
	if res.ScontrolNodes, err = query("scontrol", "-o", "show", "node"); err != nil {
		return nil, err
	}
	if res.SinfoOutput, err = query("sinfo", "-o", "%P %D %T %G %f"); err != nil {
		return nil, err
	}
	config, err := query("scontrol", "show", "config")
	if err != nil {
		return nil, err
	}
	res.Config = parseConfig(config)
	res.Partitions = parsePartitions(res.ScontrolPartitions)
	res.Nodes = parseNodes(res.ScontrolNodes)
	res.Sinfo = parseSinfo(res.SinfoOutput)

	exited := ctld.exited()
	ctld.stop(0)
	res.Log = log()
	res.Warnings = errorLines(res.Log, false)

	problems := loadProblems(conf, res)
	if exited {
		problems = append(problems, "slurmctld exited after it started")
	}
	if len(problems) > 0 {
		return res, &RejectedError{Messages: problems, ExitCode: -1}
	}
	return res, nil
}

// Lines of a fresh slurmctld's log that say nothing about the configuration.
var noise = regexp.MustCompile(`state file|NOTE: Trying backup|No .* to recover|Can not stat gres\.conf|Unable to open.*jwt|High latency for .* gettimeofday`)

// errorLines returns slurmctld's error and fatal lines without their
// "slurmctld: " prefix and without fresh-start noise. With limit, a flood of
// similar errors (one per node of a bad range) is cut to the first few.
func errorLines(log string, limit bool) []string {
	const keep = 5
	var out []string
	more, errs := 0, 0
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "slurmctld: "))
		isFatal := strings.HasPrefix(line, "fatal:")
		if !isFatal && !strings.HasPrefix(line, "error:") {
			continue
		}
		if noise.MatchString(line) || slices.Contains(out, line) {
			continue
		}
		if !isFatal {
			if errs++; limit && errs > keep {
				more++
				continue
			}
		}
		if more > 0 {
			out = append(out, fmt.Sprintf("(%d more errors)", more))
			more = 0
		}
		out = append(out, line)
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("(%d more errors)", more))
	}
	return out
}

// loadProblems finds what slurmctld accepted but loaded differently from
// the declaration, and log lines that announce a disabled function.
func loadProblems(conf []byte, res *Result) []string {
	var problems []string
	add := func(format string, args ...any) {
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	for _, line := range strings.Split(res.Log, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "slurmctld: ")
		if strings.HasPrefix(line, "fatal:") || strings.Contains(line, "power_save module disabled") {
			add("%s", line)
		}
	}
	for _, rec := range declaredRecords(conf) {
		switch rec.kind {
		case "nodename":
			hosts, err := cc.ExpandHostlist(rec.name)
			if err != nil {
				continue
			}
			for _, h := range hosts {
				n, found := res.Node(h)
				if !found {
					add("node %s is declared but slurmctld did not load it", h)
					continue
				}
				if want := rec.fields["gres"]; want != "" && n.Gres != want {
					add("node %s declares Gres=%s but slurmctld loaded Gres=%s (is the GRES type missing from GresTypes?)", h, want, n.Gres)
				}
				want := rec.fields["feature"]
				if want == "" {
					want = rec.fields["features"]
				}
				if want != "" && !sameSet(strings.Split(want, ","), n.Features) {
					add("node %s declares features %s but slurmctld loaded %s", h, want, strings.Join(n.Features, ","))
				}
			}
		case "partitionname":
			p, found := res.Partition(rec.name)
			switch {
			case !found:
				add("partition %s is declared but slurmctld did not load it", rec.name)
			case p.TotalNodes == 0:
				add("partition %s has no nodes: Nodes=%s matches none (a NodeSet that matches nothing is accepted silently)", rec.name, rec.fields["nodes"])
			}
		}
	}
	return problems
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
