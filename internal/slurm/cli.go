package slurm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Runner runs one Slurm command with env added to the process's environment and returns its
// output. A failure carries the command line and the command's own words.
type Runner func(ctx context.Context, env []string, name string, args ...string) (string, error)

// CLI drives one cluster's slurmctld through Slurm's own commands (sinfo, squeue, scontrol,
// sbatch, scancel; the job calls are in cli_jobs.go): what every Slurm version has, where
// slurmrestd (Client) may lack a call or not run yet. Like every Slurm command they need the
// cluster's munge identity, so the agent uses them as root on the controller or on a node.
// Answers are parsed here, once, into typed values.
type CLI struct {
	// Conf is the cluster's slurm.conf (SLURM_CONF); "" leaves the environment's.
	Conf string
	// Run runs the commands; nil runs them with a one-minute timeout each.
	Run Runner
}

// NodeInfo is one node as sinfo shows it.
type NodeInfo struct {
	Name string
	// State is sinfo's long state with its flags ("idle", "drained~", "mixed*").
	State string
	// Reason is why the node is drained or down; "" when none.
	Reason string
}

// Registered reports whether the node's slurmd registered and answers: not powered down or
// powering up ("~", "#", "%", "!"), not unresponsive ("*"), and not in a state slurmctld gives
// nodes it has never heard from ("unknown", "future"). Other flags ("$" reservation, "@" reboot
// pending, "+" more states) say nothing about registration.
func (n NodeInfo) Registered() bool { return RegisteredState(n.State) }

// RegisteredState is NodeInfo.Registered for a bare sinfo long state.
func RegisteredState(state string) bool {
	if state == "" || strings.ContainsAny(state, "~#%!*") {
		return false
	}
	base := strings.TrimRight(state, "$@^-+")
	return base != "unknown" && base != "future"
}

// Drained reports a node drained and running nothing; Draining one drained with jobs left.
func (n NodeInfo) Drained() bool  { return strings.HasPrefix(n.State, "drained") }
func (n NodeInfo) Draining() bool { return strings.HasPrefix(n.State, "draining") }

// Nodes lists the nodes of a hostlist ("" for every node slurmctld knows) by name, with one sinfo.
func (c CLI) Nodes(ctx context.Context, hostlist string) (map[string]NodeInfo, error) {
	args := []string{"-h", "-N", "-o", "%N|%T|%E"}
	if hostlist != "" {
		if err := checkHostlist(hostlist); err != nil {
			return nil, err
		}
		args = append(args, "-n", hostlist)
	}
	out, err := c.run(ctx, "sinfo", args...)
	if err != nil {
		return nil, err
	}
	nodes := map[string]NodeInfo{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.SplitN(strings.TrimSpace(line), "|", 3)
		if len(f) != 3 || f[0] == "" {
			continue
		}
		n := NodeInfo{Name: f[0], State: f[1]}
		if r := strings.TrimSpace(f[2]); r != "none" {
			n.Reason = r
		}
		nodes[n.Name] = n
	}
	return nodes, nil
}

// PartitionNodes lists the names of a partition's nodes in a state sinfo's -t knows ("idle",
// "drain", ...; "" for every state), with one sinfo.
func (c CLI) PartitionNodes(ctx context.Context, partition, state string) ([]string, error) {
	if err := checkHostlist(partition); err != nil {
		return nil, err
	}
	args := []string{"-h", "-N", "-p", partition}
	if state != "" {
		if err := checkHostlist(state); err != nil {
			return nil, err
		}
		args = append(args, "-t", state)
	}
	out, err := c.run(ctx, "sinfo", append(args, "-o", "%N")...)
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

// UpdateNodes changes the state of the nodes of a hostlist with `scontrol update` (drain with a
// reason, resume, ...), in one call however many nodes.
func (c CLI) UpdateNodes(ctx context.Context, hostlist string, u NodeUpdate) error {
	state, err := u.validate()
	if err != nil {
		return err
	}
	if err := checkHostlist(hostlist); err != nil {
		return err
	}
	args := []string{"update", "nodename=" + hostlist, "state=" + strings.ToLower(state)}
	if u.Reason != "" {
		args = append(args, "reason="+u.Reason)
	}
	_, err = c.run(ctx, "scontrol", args...)
	return err
}

// Reconfigure makes slurmctld read its configuration files again.
func (c CLI) Reconfigure(ctx context.Context) error {
	_, err := c.run(ctx, "scontrol", "reconfigure")
	return err
}

// Ping asks whether slurmctld answers and returns scontrol's words ("Slurmctld(primary) at ctl
// is UP"); scontrol exits 0 for a controller that is down, so the caller reads them.
func (c CLI) Ping(ctx context.Context) (string, error) {
	return c.run(ctx, "scontrol", "ping")
}

func checkHostlist(hostlist string) error {
	if hostlist == "" || strings.ContainsAny(hostlist, " \t\n") {
		return fmt.Errorf("slurm: bad node name %q", hostlist)
	}
	return nil
}

func (c CLI) run(ctx context.Context, name string, args ...string) (string, error) {
	var env []string
	if c.Conf != "" {
		env = []string{"SLURM_CONF=" + c.Conf}
	}
	run := c.Run
	if run == nil {
		run = execRunner
	}
	if name == "scontrol" {
		name = scontrolBin
	}
	return run(ctx, env, name, args...)
}

func execRunner(ctx context.Context, env []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	text := strings.TrimSpace(out.String())
	if err != nil {
		return text, fmt.Errorf("slurm: %s %s: %w: %s", name, strings.Join(args, " "), err, text)
	}
	return text, nil
}
