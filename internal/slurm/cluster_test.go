package slurm

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A private single-host Slurm for the integration tests: munged with its own
// key, slurmctld, one slurmd, and two slurmrestd (JWT over TCP as user slurm,
// rest_auth/local over a unix socket), all under one temporary directory on
// free ports, following facts/slurm-local.md. Started on first use, stopped
// by TestMain; a sentinel process kills the daemons if the test binary dies
// without stopping them.

const (
	testNode      = "rest1"
	testPartition = "resttest"
)

type testCluster struct {
	dir      string
	conf     string
	hostname string
	restURL  string // JWT slurmrestd
	restSock string // rest_auth/local slurmrestd
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
	log  string
}

var (
	clusterOnce sync.Once
	theCluster  *testCluster
	clusterSkip string
	clusterErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if theCluster != nil {
		if err := theCluster.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the test Slurm:", err)
			if code == 0 {
				code = 1
			}
		}
	}
	os.Exit(code)
}

// needCluster returns the running test cluster, starting it on first use,
// or skips the test with the reason the cluster cannot run here.
func needCluster(t *testing.T) *testCluster {
	t.Helper()
	clusterOnce.Do(func() {
		clusterSkip = clusterUnavailable()
		if clusterSkip == "" {
			start := time.Now()
			theCluster, clusterErr = startCluster()
			if clusterErr == nil {
				fmt.Fprintf(os.Stderr, "test Slurm up in %s (%s)\n", time.Since(start).Round(time.Millisecond), theCluster.dir)
			}
		}
	})
	if clusterSkip != "" {
		t.Skip("skipping: " + clusterSkip)
	}
	if clusterErr != nil {
		t.Fatal(clusterErr)
	}
	return theCluster
}

func clusterUnavailable() string {
	if testing.Short() {
		return "-short: no Slurm daemons"
	}
	if os.Geteuid() != 0 {
		return "the Slurm integration tests run the daemons and need root"
	}
	for _, bin := range []string{"munged", "slurmctld", "slurmd", "slurmrestd", "scontrol"} {
		if _, err := exec.LookPath(bin); err != nil {
			return bin + " not installed (run scripts/install-deps.sh)"
		}
	}
	if _, err := user.Lookup("slurm"); err != nil {
		return "no user slurm for slurmrestd (install the slurmrestd package)"
	}
	return ""
}

func startCluster() (c *testCluster, err error) {
	dir, err := os.MkdirTemp("", "slurmrest-test-")
	if err != nil {
		return nil, err
	}
	c = &testCluster{dir: dir, conf: filepath.Join(dir, "etc", "slurm.conf")}
	defer func() {
		if err != nil {
			err = fmt.Errorf("start test Slurm: %w%s", err, c.logs())
			_ = c.stop()
			c = nil
		}
	}()
	host, err := os.Hostname()
	if err != nil {
		return c, err
	}
	c.hostname, _, _ = strings.Cut(host, ".")
	slurmUser, err := user.Lookup("slurm")
	if err != nil {
		return c, err
	}
	slurmUID, _ := strconv.Atoi(slurmUser.Uid)

	// The slurm user (slurmrestd) must reach the config and the munge socket.
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
	jwtKey := filepath.Join(dir, "etc", "jwt.key")
	if err := writeRandom(jwtKey, 64, 0o600); err != nil {
		return c, err
	}
	if err := os.Chown(jwtKey, slurmUID, -1); err != nil {
		return c, err
	}
	ports, err := freePorts(3)
	if err != nil {
		return c, err
	}
	ctldPort, slurmdPort, restPort := ports[0], ports[1], ports[2]
	conf := fmt.Sprintf(`ClusterName=resttest
SlurmctldHost=%[2]s(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=%[1]s/run/munge.sock
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=%[1]s/etc/jwt.key
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
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
NodeName=%[5]s NodeHostname=%[2]s NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=%[6]s Nodes=%[5]s Default=YES MaxTime=INFINITE State=UP
`, dir, c.hostname, ctldPort, slurmdPort, testNode, testPartition)
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		return c, err
	}
	// scontrol (tokens, drain) in this process must find this cluster.
	c.oldConf, c.hadConf = os.LookupEnv("SLURM_CONF")
	c.confSet = true
	os.Setenv("SLURM_CONF", c.conf)

	if err := c.start("munged", nil, true, "munged", "-F", "--key-file="+dir+"/munge/munge.key",
		"--socket="+dir+"/run/munge.sock", "--pid-file="+dir+"/run/munged.pid",
		"--log-file="+dir+"/munge/munged.log", "--seed-file="+dir+"/munge/munged.seed"); err != nil {
		return c, err
	}
	if err := waitFor(5*time.Second, "munge socket", func() bool {
		_, err := os.Stat(dir + "/run/munge.sock")
		return err == nil
	}); err != nil {
		return c, err
	}
	if err := c.start("slurmctld", nil, true, "slurmctld", "-D", "-i", "-f", c.conf); err != nil {
		return c, err
	}
	if err := waitFor(10*time.Second, "slurmctld port", func() bool { return canDial(ctldPort) }); err != nil {
		return c, err
	}
	c.ctldUp = true
	if err := c.start("slurmd", nil, true, "slurmd", "-D", "-f", c.conf, "-N", testNode); err != nil {
		return c, err
	}
	// slurmrestd refuses to run as root: it starts as root and becomes slurm (-u).
	if err := c.start("slurmrestd-jwt", []string{"SLURM_JWT=daemon"}, false, "slurmrestd", "-f", c.conf,
		"-a", "rest_auth/jwt", "-s", "openapi/v0.0.38,openapi/v0.0.37", "-u", "slurm",
		fmt.Sprintf("127.0.0.1:%d", restPort)); err != nil {
		return c, err
	}
	c.restURL = fmt.Sprintf("http://127.0.0.1:%d", restPort)
	c.restSock = dir + "/run/slurmrestd.sock"
	// rest_auth/local takes the caller's uid from the socket; acting for root
	// needs slurmrestd to stay root, which disable_user_check allows.
	if err := c.start("slurmrestd-local", []string{"SLURMRESTD_SECURITY=disable_user_check"}, true,
		"slurmrestd", "-f", c.conf, "-a", "rest_auth/local", "-s", "openapi/v0.0.38", "unix:"+c.restSock); err != nil {
		return c, err
	}
	if err := c.startSentinel(); err != nil {
		return c, err
	}
	if err := waitFor(10*time.Second, "node "+testNode+" idle", func() bool {
		out, err := exec.Command("scontrol", "-o", "show", "node", testNode).Output()
		return err == nil && bytes.Contains(out, []byte("State=IDLE"))
	}); err != nil {
		return c, err
	}
	if err := waitFor(5*time.Second, "slurmrestd", func() bool {
		_, err := os.Stat(c.restSock)
		return canDial(restPort) && err == nil
	}); err != nil {
		return c, err
	}
	return c, nil
}

// start runs one daemon in the foreground as a child. pdeath makes the
// kernel kill it when this process dies; a daemon that changes its uid
// (slurmrestd -u) loses that, and the sentinel covers it.
func (c *testCluster) start(name string, env []string, pdeath bool, argv ...string) error {
	logPath := filepath.Join(c.dir, "log", name+".out")
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), "SLURM_CONF="+c.conf), env...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if pdeath {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	d := &daemon{name: name, cmd: cmd, done: make(chan struct{}), log: logPath}
	go func() { _ = cmd.Wait(); close(d.done) }()
	c.procs = append(c.procs, d)
	select {
	case <-d.done:
		return fmt.Errorf("%s exited at once: %s", name, cmd.ProcessState)
	case <-time.After(50 * time.Millisecond):
		return nil
	}
}

// startSentinel starts a shell that outlives this process only to kill the
// daemons it started and remove their directory, should this process die
// before stop (a panic, a test timeout).
func (c *testCluster) startSentinel() error {
	var pids []string
	for _, d := range c.procs {
		pids = append(pids, strconv.Itoa(d.cmd.Process.Pid))
	}
	script := fmt.Sprintf(`while kill -0 %d 2>/dev/null; do sleep 1; done; kill -9 %s 2>/dev/null; sleep 1; rm -rf '%s'`,
		os.Getpid(), strings.Join(pids, " "), c.dir)
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	c.sentinel = cmd
	return nil
}

// stop cancels leftover jobs (their slurmstepd would outlive slurmd), stops
// every daemon (SIGTERM, then SIGKILL after 5 s) and removes the directory.
func (c *testCluster) stop() error {
	var errs []string
	if c.ctldUp {
		_ = exec.Command("scancel", "--full", "--partition", testPartition).Run()
		_ = waitFor(5*time.Second, "jobs gone", func() bool {
			out, err := exec.Command("squeue", "-h", "-o", "%i").Output()
			return err != nil || len(bytes.TrimSpace(out)) == 0
		})
	}
	for i := len(c.procs) - 1; i >= 0; i-- {
		d := c.procs[i]
		_ = d.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.done:
		case <-time.After(5 * time.Second):
			errs = append(errs, d.name+" ignored SIGTERM for 5 s")
			_ = d.cmd.Process.Kill()
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
	if err := os.RemoveAll(c.dir); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// logs returns the daemons' log tails for a failed start.
func (c *testCluster) logs() string {
	var b strings.Builder
	paths, _ := filepath.Glob(filepath.Join(c.dir, "log", "*"))
	paths = append(paths, filepath.Join(c.dir, "munge", "munged.log"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || len(data) == 0 {
			continue
		}
		if len(data) > 2000 {
			data = data[len(data)-2000:]
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

// freePorts asks the kernel for n distinct free TCP ports.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func canDial(port int) bool {
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

func waitFor(limit time.Duration, what string, ok func() bool) error {
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

// testContext bounds one integration test's calls.
func testContext(t *testing.T) context.Context {
	// Generous: with local-runtime clusters training beside it on 2 cores, a cancelled job was
	// seen COMPLETING for over 30 s (slurmstepd reaping under load), which is no failure of this API.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
