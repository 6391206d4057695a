// Package slurmtest starts a private Slurm on this host for tests (facts/slurm-local.md): munged
// with its own key, slurmctld, one slurmd per node on ports of its own, and optionally two
// slurmrestd (JWT over TCP as user slurm, rest_auth/local over a unix socket), all under one
// temporary directory. The tests of internal/slurm and internal/recipes share it, each with the
// nodes and settings it needs; Shared starts one per test binary on first use and stops it in
// TestMain. A sentinel process kills the daemons if the test binary dies without stopping them.
//
// It needs root and Debian's Slurm packages; Unavailable says why not when it cannot run.
package slurmtest

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurmcheck"
)

// Node is one slurmd of the cluster.
type Node struct {
	Name string
	CPUs int
}

// Options shape a test cluster.
type Options struct {
	// Name is the ClusterName and the start of the temporary directory's name.
	Name string
	// Partition is the default partition, holding every node of Nodes.
	Partition string
	Nodes     []Node
	// CredExpire, in seconds, is how long a job credential lives (AuthInfo cred_expire); 0 keeps
	// Slurm's 120 s. It is also how long a requeued job waits before it may start again.
	CredExpire int
	// Conf is more slurm.conf lines: settings, and nodes and partitions of the test's own (cloud
	// nodes that never boot); they come before the nodes of Nodes.
	Conf string
	// REST starts the two slurmrestd (Cluster.RESTURL, Cluster.RESTSocket).
	REST bool
	// Commands are Slurm commands the tests run themselves (sbatch, srun), checked by Unavailable.
	Commands []string
}

// Cluster is a running test Slurm. While it runs, SLURM_CONF of this process names its
// slurm.conf, so the Slurm commands a test runs find it.
type Cluster struct {
	Dir      string
	Conf     string // slurm.conf
	Hostname string // this host's short name, every node's NodeHostname
	// RESTURL is the JWT slurmrestd ("http://127.0.0.1:<port>"), RESTSocket the rest_auth/local
	// one; both "" without Options.REST.
	RESTURL, RESTSocket string

	opts     Options
	procs    []*daemon
	sentinel *exec.Cmd
	confSet  bool // SLURM_CONF of this process points at the cluster
	oldConf  string
	hadConf  bool
	ctldUp   bool
}

type daemon struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

// Unavailable says why a cluster of these options cannot run on this host, or "".
func Unavailable(o Options) string {
	if os.Geteuid() != 0 {
		return "the Slurm tests run slurmctld and slurmd and need root"
	}
	bins := []string{"munged", "slurmctld", "slurmd", "scontrol", "sinfo", "squeue", "scancel"}
	if o.REST {
		bins = append(bins, "slurmrestd")
	}
	for _, bin := range append(bins, o.Commands...) {
		if _, err := exec.LookPath(bin); err != nil {
			return bin + " not installed (run scripts/install-deps.sh)"
		}
	}
	if o.REST {
		if _, err := user.Lookup("slurm"); err != nil {
			return "no user slurm for slurmrestd (install the slurmrestd package)"
		}
	}
	return ""
}

// Start starts a cluster and waits until every node is idle and slurmrestd (if any) answers.
// On failure nothing it started is left and the error carries the daemons' log tails.
func Start(o Options) (c *Cluster, err error) {
	if o.Name == "" || o.Partition == "" || len(o.Nodes) == 0 {
		return nil, fmt.Errorf("slurmtest: a cluster needs a name, a partition and nodes: %+v", o)
	}
	dir, err := os.MkdirTemp("", o.Name+"-slurm-")
	if err != nil {
		return nil, err
	}
	c = &Cluster{Dir: dir, Conf: filepath.Join(dir, "etc", "slurm.conf"), opts: o}
	defer func() {
		if err != nil {
			err = fmt.Errorf("start test Slurm: %w%s", err, c.logs())
			_ = c.Stop()
			c = nil
		}
	}()
	host, err := os.Hostname()
	if err != nil {
		return c, err
	}
	c.Hostname, _, _ = strings.Cut(host, ".")

	// The slurm user (slurmrestd) must reach the config and the munge socket; jobs of any user
	// write to out/.
	for sub, mode := range map[string]os.FileMode{"": 0o755, "etc": 0o755, "run": 0o755, "munge": 0o700,
		"state": 0o700, "spool": 0o755, "log": 0o755, "out": 0o777} {
		p := filepath.Join(dir, sub)
		if err := os.MkdirAll(p, mode); err != nil {
			return c, err
		}
		if err := os.Chmod(p, mode); err != nil {
			return c, err
		}
	}
	if err := writeRandom(filepath.Join(dir, "munge", "munge.key"), 1024, 0o400); err != nil {
		return c, err
	}
	ports, err := FreePorts(2 + len(o.Nodes))
	if err != nil {
		return c, err
	}
	ctldPort, restPort := ports[0], ports[1]
	conf, err := c.slurmConf(ctldPort, ports[2:])
	if err != nil {
		return c, err
	}
	if err := os.WriteFile(c.Conf, []byte(conf), 0o644); err != nil {
		return c, err
	}
	// The Slurm commands of this process (tests, scontrol token) must find this cluster.
	c.oldConf, c.hadConf = os.LookupEnv("SLURM_CONF")
	c.confSet = true
	os.Setenv("SLURM_CONF", c.Conf)

	if err := c.start("munged", nil, true, "munged", "-F", "--key-file="+dir+"/munge/munge.key",
		"--socket="+dir+"/run/munge.sock", "--pid-file="+dir+"/run/munged.pid",
		"--log-file="+dir+"/munge/munged.log", "--seed-file="+dir+"/munge/munged.seed"); err != nil {
		return c, err
	}
	if err := WaitFor(5*time.Second, "munge socket", func() bool {
		_, err := os.Stat(dir + "/run/munge.sock")
		return err == nil
	}); err != nil {
		return c, err
	}
	if err := c.start("slurmctld", nil, true, "slurmctld", "-D", "-i", "-f", c.Conf); err != nil {
		return c, err
	}
	if err := WaitFor(15*time.Second, "slurmctld port", func() bool { return canDial(ctldPort) }); err != nil {
		return c, err
	}
	c.ctldUp = true
	for _, n := range o.Nodes {
		if err := c.start("slurmd-"+n.Name, nil, true, "slurmd", "-D", "-f", c.Conf, "-N", n.Name); err != nil {
			return c, err
		}
	}
	if o.REST {
		if err := c.startREST(restPort); err != nil {
			return c, err
		}
	}
	if err := c.startSentinel(); err != nil {
		return c, err
	}
	idle := fmt.Sprintf("idle %d", len(o.Nodes))
	if err := WaitFor(15*time.Second, "the nodes of "+o.Partition+" idle", func() bool {
		out, err := exec.Command("sinfo", "-h", "-p", o.Partition, "-o", "%T %D").Output()
		return err == nil && strings.TrimSpace(string(out)) == idle
	}); err != nil {
		return c, err
	}
	if o.REST {
		if err := WaitFor(5*time.Second, "slurmrestd", func() bool {
			_, err := os.Stat(c.RESTSocket)
			return canDial(restPort) && err == nil
		}); err != nil {
			return c, err
		}
	}
	return c, nil
}

func (c *Cluster) slurmConf(ctldPort int, nodePorts []int) (string, error) {
	o, dir := c.opts, c.Dir
	var b strings.Builder
	fmt.Fprintf(&b, "ClusterName=%s\nSlurmctldHost=%s(127.0.0.1)\nSlurmUser=root\nAuthType=auth/munge\n", o.Name, c.Hostname)
	fmt.Fprintf(&b, "AuthInfo=socket=%s/run/munge.sock", dir)
	if o.CredExpire > 0 {
		fmt.Fprintf(&b, ",cred_expire=%d", o.CredExpire)
	}
	b.WriteString("\n")
	if o.REST {
		jwtKey := filepath.Join(dir, "etc", "jwt.key")
		if err := writeRandom(jwtKey, 64, 0o600); err != nil {
			return "", err
		}
		slurmUser, err := user.Lookup("slurm")
		if err != nil {
			return "", err
		}
		uid, _ := strconv.Atoi(slurmUser.Uid)
		if err := os.Chown(jwtKey, uid, -1); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=%s\n", jwtKey)
	}
	fmt.Fprintf(&b, `SlurmctldPort=%[2]d
StateSaveLocation=%[1]s/state
SlurmdSpoolDir=%[1]s/spool/%%n
SlurmctldPidFile=%[1]s/run/slurmctld.pid
SlurmdPidFile=%[1]s/run/slurmd-%%n.pid
SlurmctldLogFile=%[1]s/log/slurmctld.log
SlurmdLogFile=%[1]s/log/slurmd-%%n.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
MpiDefault=none
ReturnToService=2
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SlurmdParameters=config_overrides
`, dir, ctldPort)
	if o.Conf != "" {
		b.WriteString(strings.TrimRight(o.Conf, "\n") + "\n")
	}
	var names []string
	for i, n := range o.Nodes {
		fmt.Fprintf(&b, "NodeName=%s NodeHostname=%s NodeAddr=127.0.0.1 Port=%d CPUs=%d State=UNKNOWN\n",
			n.Name, c.Hostname, nodePorts[i], max(n.CPUs, 1))
		names = append(names, n.Name)
	}
	fmt.Fprintf(&b, "PartitionName=%s Nodes=%s Default=YES MaxTime=INFINITE State=UP\n", o.Partition, strings.Join(names, ","))
	return b.String(), nil
}

// startREST starts slurmrestd twice. It refuses to run as root: the JWT one starts as root and
// becomes slurm (-u); rest_auth/local takes the caller's uid from the socket, and acting for root
// needs slurmrestd to stay root, which disable_user_check allows.
func (c *Cluster) startREST(port int) error {
	if err := c.start("slurmrestd-jwt", []string{"SLURM_JWT=daemon"}, false, "slurmrestd", "-f", c.Conf,
		"-a", "rest_auth/jwt", "-s", "openapi/v0.0.38,openapi/v0.0.37", "-u", "slurm",
		fmt.Sprintf("127.0.0.1:%d", port)); err != nil {
		return err
	}
	c.RESTURL = fmt.Sprintf("http://127.0.0.1:%d", port)
	c.RESTSocket = c.Dir + "/run/slurmrestd.sock"
	return c.start("slurmrestd-local", []string{"SLURMRESTD_SECURITY=disable_user_check"}, true,
		"slurmrestd", "-f", c.Conf, "-a", "rest_auth/local", "-s", "openapi/v0.0.38", "unix:"+c.RESTSocket)
}

// start runs one daemon in the foreground as a child, in a process group of its own. pdeath
// makes the kernel kill it when this process dies; a daemon that changes its uid (slurmrestd -u)
// loses that, and the sentinel covers it.
func (c *Cluster) start(name string, env []string, pdeath bool, argv ...string) error {
	f, err := os.Create(filepath.Join(c.Dir, "log", name+".out"))
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), "SLURM_CONF="+c.Conf), env...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if pdeath {
		dieWithParent(cmd.SysProcAttr)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	d := &daemon{name: name, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(d.done) }()
	c.procs = append(c.procs, d)
	select {
	case <-d.done:
		return fmt.Errorf("%s exited at once: %s", name, cmd.ProcessState)
	case <-time.After(50 * time.Millisecond):
		return nil
	}
}

// startSentinel starts a shell that outlives this process only to kill the daemons it started
// and remove their directory, should this process die before Stop (a panic, a test timeout).
func (c *Cluster) startSentinel() error {
	var pids []string
	for _, d := range c.procs {
		pids = append(pids, strconv.Itoa(d.cmd.Process.Pid))
	}
	script := fmt.Sprintf(`while kill -0 %d 2>/dev/null; do sleep 1; done; kill -9 %s 2>/dev/null; sleep 1; rm -rf '%s'`,
		os.Getpid(), strings.Join(pids, " "), c.Dir)
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	c.sentinel = cmd
	return nil
}

// Stop cancels leftover jobs (a job's slurmstepd and its processes would outlive slurmd), stops
// every daemon's process group, newest first (SIGTERM, then SIGKILL after 5 s), puts SLURM_CONF
// back and removes the directory. A daemon that ignored SIGTERM is an error.
func (c *Cluster) Stop() error {
	var errs []string
	if c.ctldUp {
		_ = exec.Command("scancel", "--full", "--partition", c.opts.Partition).Run()
		_ = WaitFor(10*time.Second, "jobs gone", func() bool {
			out, err := exec.Command("squeue", "-h", "-o", "%i").Output()
			return err != nil || len(bytes.TrimSpace(out)) == 0
		})
	}
	for i := len(c.procs) - 1; i >= 0; i-- {
		d := c.procs[i]
		_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-d.done:
		case <-time.After(5 * time.Second):
			errs = append(errs, d.name+" ignored SIGTERM for 5 s")
			_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
			<-d.done
		}
	}
	if c.sentinel != nil {
		_ = c.sentinel.Process.Kill()
		_ = c.sentinel.Wait()
	}
	if c.confSet {
		if c.hadConf {
			os.Setenv("SLURM_CONF", c.oldConf)
		} else {
			os.Unsetenv("SLURM_CONF")
		}
	}
	if err := os.RemoveAll(c.Dir); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return fmt.Errorf("stopping the test Slurm: %s", strings.Join(errs, "; "))
	}
	return nil
}

// logs returns the daemons' log tails, for a failed start.
func (c *Cluster) logs() string {
	var b strings.Builder
	paths, _ := filepath.Glob(filepath.Join(c.Dir, "log", "*"))
	paths = append(paths, filepath.Join(c.Dir, "munge", "munged.log"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || len(data) == 0 {
			continue
		}
		if len(data) > 3000 {
			data = data[len(data)-3000:]
		}
		fmt.Fprintf(&b, "\n--- %s\n%s", filepath.Base(p), data)
	}
	return b.String()
}

func writeRandom(path string, n int, mode os.FileMode) error {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	return os.WriteFile(path, b, mode)
}

// FreePorts asks the kernel for n distinct free TCP ports on 127.0.0.1.
var FreePorts = slurmcheck.FreePorts

func canDial(port int) bool {
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// WaitFor polls ok until it holds or limit has passed; the error names what it waited for.
func WaitFor(limit time.Duration, what string, ok func() bool) error {
	deadline := time.Now().Add(limit)
	for {
		if ok() {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
