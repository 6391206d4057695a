package recipes

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// A private Slurm for this package's tests (facts/slurm-local.md): munged,
// slurmctld and two slurmd on one host (ports of their own) forming the CPU
// partition "cpu", plus one cloud partition per GPU machine profile whose
// nodes never boot: `sbatch --test-only` checks a script against them
// without any node up. Started on first use and shared by every test of
// the package; TestMain stops it.

const cpuPartition = "cpu"

type testSlurm struct {
	dir   string
	conf  string
	procs []*exec.Cmd
	// gpuPartitions maps a machine profile to its partition name.
	gpuPartitions map[string]string
}

var (
	slurmOnce sync.Once
	theSlurm  *testSlurm
	slurmSkip string
	slurmErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if theSlurm != nil {
		theSlurm.stop()
	}
	os.Exit(code)
}

func needSlurm(t *testing.T) *testSlurm {
	t.Helper()
	slurmOnce.Do(func() {
		slurmSkip = slurmUnavailable()
		if slurmSkip == "" {
			theSlurm, slurmErr = startSlurm()
		}
	})
	if slurmSkip != "" {
		t.Skip("skipping: " + slurmSkip)
	}
	if slurmErr != nil {
		t.Fatal(slurmErr)
	}
	return theSlurm
}

func slurmUnavailable() string {
	if testing.Short() {
		return "-short: no Slurm daemons"
	}
	if os.Geteuid() != 0 {
		return "the Slurm tests run slurmctld and slurmd and need root"
	}
	for _, bin := range []string{"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "squeue"} {
		if _, err := exec.LookPath(bin); err != nil {
			return bin + " not installed (run scripts/install-deps.sh)"
		}
	}
	return ""
}

// gpuProfiles are the machine profiles of the GPU recipes, each with one
// machine type of the catalog to shape its cloud nodes.
func gpuNodeLines(maxNodes map[string]int) (nodes, parts string, names map[string]string) {
	names = map[string]string{}
	var nb, pb strings.Builder
	for _, m := range catalog.Machines() {
		n, ok := maxNodes[m.Profile]
		if !ok || !m.HasGPU() || names[m.Profile] != "" {
			continue
		}
		part := "gpu-" + m.Profile
		prefix := strings.ReplaceAll(m.Profile, "-", "")
		names[m.Profile] = part
		fmt.Fprintf(&nb, "NodeName=%s-[0-%d] State=CLOUD CPUs=%d RealMemory=%d Gres=gpu:%s:%d Feature=%s\n",
			prefix, n-1, m.CPUs, m.MemoryMB, m.GPU.SlurmType, m.GPU.Count, m.Profile)
		fmt.Fprintf(&pb, "PartitionName=%s Nodes=%s-[0-%d] MaxTime=INFINITE State=UP\n", part, prefix, n-1)
	}
	return nb.String(), pb.String(), names
}

func startSlurm() (s *testSlurm, err error) {
	dir, err := os.MkdirTemp("", "recipes-slurm-")
	if err != nil {
		return nil, err
	}
	s = &testSlurm{dir: dir, conf: filepath.Join(dir, "etc", "slurm.conf")}
	defer func() {
		if err != nil {
			err = fmt.Errorf("start test Slurm: %w%s", err, s.logs())
			s.stop()
			s = nil
		}
	}()
	for sub, mode := range map[string]os.FileMode{"": 0o755, "etc": 0o755, "run": 0o755, "munge": 0o700,
		"state": 0o700, "spool": 0o755, "log": 0o755, "jobs": 0o777} {
		p := filepath.Join(dir, sub)
		if err := os.MkdirAll(p, mode); err != nil {
			return s, err
		}
		if err := os.Chmod(p, mode); err != nil {
			return s, err
		}
	}
	key := make([]byte, 1024)
	if _, err := rand.Read(key); err != nil {
		return s, err
	}
	if err := os.WriteFile(filepath.Join(dir, "munge", "munge.key"), key, 0o400); err != nil {
		return s, err
	}
	host, err := os.Hostname()
	if err != nil {
		return s, err
	}
	host, _, _ = strings.Cut(host, ".")
	ports, err := freePorts(3)
	if err != nil {
		return s, err
	}
	maxNodes := map[string]int{}
	for _, r := range List() {
		if r.GPU() && r.Nodes > maxNodes[r.Profile] {
			maxNodes[r.Profile] = r.Nodes
		}
	}
	gpuNodes, gpuParts, names := gpuNodeLines(maxNodes)
	s.gpuPartitions = names
	// cred_expire is also how long a requeued job waits before it may start
	// again (120 s by default); the requeue test would spend that idle.
	conf := fmt.Sprintf(`ClusterName=recipes
SlurmctldHost=%[2]s(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=%[1]s/run/munge.sock,cred_expire=5
SlurmctldPort=%[3]d
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
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=20
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SlurmdParameters=config_overrides
GresTypes=gpu
ResumeProgram=/bin/true
SuspendProgram=/bin/true
SuspendTime=600
ResumeTimeout=600
NodeName=n1 NodeHostname=%[2]s NodeAddr=127.0.0.1 Port=%[4]d CPUs=1 State=UNKNOWN
NodeName=n2 NodeHostname=%[2]s NodeAddr=127.0.0.1 Port=%[5]d CPUs=1 State=UNKNOWN
%[6]sPartitionName=%[7]s Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
%[8]s`, dir, host, ports[0], ports[1], ports[2], gpuNodes, cpuPartition, gpuParts)
	if err := os.WriteFile(s.conf, []byte(conf), 0o644); err != nil {
		return s, err
	}
	os.Setenv("SLURM_CONF", s.conf)
	if err := s.start("munged", "-F", "--key-file="+dir+"/munge/munge.key", "--socket="+dir+"/run/munge.sock",
		"--pid-file="+dir+"/run/munged.pid", "--log-file="+dir+"/munge/munged.log", "--seed-file="+dir+"/munge/munged.seed"); err != nil {
		return s, err
	}
	if err := waitUntil(5*time.Second, "munge socket", func() bool {
		_, err := os.Stat(dir + "/run/munge.sock")
		return err == nil
	}); err != nil {
		return s, err
	}
	if err := s.start("slurmctld", "-D", "-i", "-f", s.conf); err != nil {
		return s, err
	}
	if err := waitUntil(15*time.Second, "slurmctld", func() bool { return exec.Command("scontrol", "ping").Run() == nil }); err != nil {
		return s, err
	}
	for _, n := range []string{"n1", "n2"} {
		if err := s.start("slurmd-"+n, "-D", "-f", s.conf, "-N", n); err != nil {
			return s, err
		}
	}
	err = waitUntil(15*time.Second, "nodes n1,n2 idle", func() bool {
		out, err := exec.Command("sinfo", "-h", "-p", cpuPartition, "-o", "%T %D").Output()
		return err == nil && strings.TrimSpace(string(out)) == "idle 2"
	})
	return s, err
}

func (s *testSlurm) start(name string, argv ...string) error {
	bin := strings.SplitN(name, "-", 2)[0]
	f, err := os.Create(filepath.Join(s.dir, "log", name+".out"))
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(bin, argv...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+s.conf)
	cmd.Stdout, cmd.Stderr = f, f
	// Pdeathsig: the daemons die with the test binary even if it panics.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	s.procs = append(s.procs, cmd)
	return nil
}

// stop cancels what is left (a job's slurmstepd and trainer would outlive
// slurmd) and kills the daemons' process groups, newest first.
func (s *testSlurm) stop() {
	_ = exec.Command("scancel", "--full", "--partition", cpuPartition).Run()
	_ = waitUntil(10*time.Second, "jobs gone", func() bool {
		out, err := exec.Command("squeue", "-h", "-o", "%i").Output()
		return err != nil || len(bytes.TrimSpace(out)) == 0
	})
	for i := len(s.procs) - 1; i >= 0; i-- {
		p := s.procs[i]
		_ = syscall.Kill(-p.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	_ = os.RemoveAll(s.dir)
}

func (s *testSlurm) logs() string {
	var b strings.Builder
	paths, _ := filepath.Glob(filepath.Join(s.dir, "log", "*"))
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

func waitUntil(limit time.Duration, what string, ok func() bool) error {
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %s", limit, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}
