package localrt

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
)

const processEnv = "HYPERCOMPUTE_LOCALRT_EMULATOR_PROCESS"

// TestEmulatorProcess is the emulator process of TestEmulatorExitAndCrashLeaveNothing, what
// `hypercompute-emulator --runtime=local --listen 127.0.0.1:0` does: build the emulator, attach the local
// runtime, serve until SIGINT/SIGTERM (then close, tearing the hosts down) or until killed.
func TestEmulatorProcess(t *testing.T) {
	if os.Getenv(processEnv) == "" {
		t.Skip("the emulator process of TestEmulatorExitAndCrashLeaveNothing")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fail := func(err error) {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	emu, err := emulator.New(emulator.Config{Seed: 1})
	if err != nil {
		fail(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	url := "http://" + ln.Addr().String()
	if _, err := emu.AttachLocalRuntime(emulator.LocalRuntimeConfig{EmulatorURL: url}); err != nil {
		fail(err)
	}
	rc, _, _ := emu.LocalRuntimeConfig()
	fmt.Println("SERVING", url, rc.Prefix, rc.StateDir)
	if err := emu.ServeListener(ctx, ln); err != nil {
		fail(err)
	}
	fmt.Println("STOPPED")
	os.Exit(0)
}

// emulatorProcess is a running TestEmulatorProcess.
type emulatorProcess struct {
	cmd      *exec.Cmd
	url      string
	prefix   string
	stateDir string
	stderr   *lockedBuffer
	done     chan error
}

func startEmulatorProcess(t *testing.T) *emulatorProcess {
	t.Helper()
	if err := emulator.LocalRuntimeAvailable(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	p := &emulatorProcess{stderr: &lockedBuffer{}, done: make(chan error, 1)}
	p.cmd = exec.Command(os.Args[0], "-test.run=^TestEmulatorProcess$", "-test.count=1")
	p.cmd.Env = append(os.Environ(), processEnv+"=1")
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		p.done <- p.cmd.Wait()
	}()
	// A failing test must not leave the emulator running; Kill after it exited is a no-op.
	t.Cleanup(func() { p.cmd.Process.Kill() })
	select {
	case l, ok := <-lines:
		f := strings.Fields(l)
		if !ok || len(f) != 4 || f[0] != "SERVING" {
			t.Fatalf("emulator process: %q; stderr:\n%s", l, p.stderr.String())
		}
		p.url, p.prefix, p.stateDir = f[1], f[2], f[3]
	case <-time.After(20 * time.Second):
		t.Fatalf("emulator process did not start; stderr:\n%s", p.stderr.String())
	}
	go func() {
		for range lines {
		}
	}()
	return p
}

func (p *emulatorProcess) wait(t *testing.T) {
	t.Helper()
	select {
	case err := <-p.done:
		var exit *exec.ExitError
		if err != nil && !(errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL) {
			t.Errorf("emulator process: %v; stderr:\n%s", err, p.stderr.String())
		}
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		t.Fatalf("emulator process did not exit; stderr:\n%s", p.stderr.String())
	}
}

// hostProcs finds the processes in the network namespaces of a runtime prefix, as `ip netns pids` would.
func hostProcs(t *testing.T, prefix string) []hostProc {
	t.Helper()
	nss, _ := filepath.Glob("/run/netns/" + prefix + "-h*")
	idents := map[string]bool{}
	for _, ns := range nss {
		var st unix.Stat_t
		if err := unix.Stat(ns, &st); err == nil {
			idents[fmt.Sprintf("net:[%d]", st.Ino)] = true
		}
	}
	var out []hostProc
	links, _ := filepath.Glob("/proc/[0-9]*/ns/net")
	for _, l := range links {
		if ns, err := os.Readlink(l); err == nil && idents[ns] {
			var pid int
			fmt.Sscanf(filepath.Base(filepath.Dir(filepath.Dir(l))), "%d", &pid)
			out = append(out, hostProc{pid, ns})
		}
	}
	return out
}

// bootIn boots VMs with a daemon each in the emulator at url and waits until their scripts finished.
func bootIn(t *testing.T, url string, names ...string) {
	t.Helper()
	c := newCloud(t, url)
	c.network()
	for _, n := range names {
		c.createVM(n, "setsid -f sleep 1000 </dev/null >/dev/null 2>&1\necho daemon started\n")
	}
	for _, n := range names {
		c.waitSerial(n, "startup-script exit status 0", 1, 20*time.Second)
	}
}

// The emulator's exit on SIGTERM tears its hosts down; after a SIGKILL, the next emulator's start removes
// everything the dead one left: namespaces, bridges, veths, cgroups, processes, state dir.
func TestEmulatorExitAndCrashLeaveNothing(t *testing.T) {
	// SIGTERM: a graceful exit.
	p := startEmulatorProcess(t)
	bootIn(t, p.url, "term-a", "term-b")
	procs := hostProcs(t, p.prefix)
	if len(procs) < 4 { // per VM at least its init and the daemon
		t.Fatalf("the emulator's hosts run only %v", procs)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(t)
	assertNothingLeft(t, p.prefix, p.stateDir, procs)

	// SIGKILL: a crash leaves things behind...
	p = startEmulatorProcess(t)
	bootIn(t, p.url, "kill-a", "kill-b")
	procs = hostProcs(t, p.prefix)
	if len(procs) < 4 {
		t.Fatalf("the emulator's hosts run only %v", procs)
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t)
	if out, _ := exec.Command("ip", "netns", "list").Output(); !bytes.Contains(out, []byte(p.prefix+"-h")) {
		t.Fatalf("a SIGKILLed emulator left no netns, so this test proves nothing:\n%s", out)
	}
	if _, err := os.Stat(p.stateDir); err != nil {
		t.Fatalf("a SIGKILLed emulator left no state dir, so this test proves nothing: %v", err)
	}
	// ...that the next emulator's start removes.
	startCloud(t)
	assertNothingLeft(t, p.prefix, p.stateDir, procs)
}

// lockedBuffer collects a child's stderr while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
