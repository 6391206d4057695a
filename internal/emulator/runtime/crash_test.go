//go:build linux

package vmruntime

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

const crashChildEnv = "HYPERCOMPUTE_RUNTIME_CRASH_CHILD"

// TestCrashChild is the emulator that crashes: run by TestCleanupAfterCrash
// in a child process, it boots hosts with daemons, says READY and waits to be
// SIGKILLed.
func TestCrashChild(t *testing.T) {
	arg := os.Getenv(crashChildEnv)
	if arg == "" {
		t.Skip("helper process for TestCleanupAfterCrash")
	}
	prefix, stateDir, _ := strings.Cut(arg, ":")
	r, err := New(Config{Prefix: prefix, StateDir: stateDir})
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	for i, name := range []string{"c1", "c2"} {
		spec := HostSpec{Name: name, Network: "crash", IP: fmt.Sprintf("10.10.0.%d", i+2),
			StartupScript: "setsid -f sleep 1000; sleep 1000 &"}
		if err := r.Boot(context.Background(), spec); err != nil {
			fmt.Println("ERROR", err)
			os.Exit(1)
		}
		if _, err := r.WaitStartup(context.Background(), name); err != nil {
			fmt.Println("ERROR", err)
			os.Exit(1)
		}
	}
	fmt.Println("READY")
	select {}
}

func TestCleanupAfterCrash(t *testing.T) {
	live := newTestRuntime(t, Config{})
	bootOK(t, live, HostSpec{Name: "alive", Network: "n", IP: "10.11.0.2", StartupScript: "true"})

	prefix := testPrefix(t)
	child := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
	child.Env = append(os.Environ(), crashChildEnv+"="+prefix+":"+t.TempDir())
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	ready := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if l := lines.Text(); l == "READY" || strings.HasPrefix(l, "ERROR") {
				ready <- l
				return
			}
		}
		ready <- "child exited"
	}()
	select {
	case l := <-ready:
		if l != "READY" {
			t.Fatalf("crash child: %s", l)
		}
	case <-time.After(30 * time.Second):
		child.Process.Kill()
		t.Fatal("crash child never got ready")
	}

	// What the dead emulator leaves: netns with processes, cgroups, links.
	var victims []int
	for _, ns := range []string{netnsName(prefix, 1), netnsName(prefix, 2)} {
		var st unix.Stat_t
		if err := unix.Stat(netnsPath(ns), &st); err != nil {
			t.Fatalf("crash child's netns %s: %v", ns, err)
		}
		victims = append(victims, pidsWithNS("net", fmt.Sprintf("net:[%d]", st.Ino))...)
	}
	if len(victims) < 6 { // per host: init, two sleeps
		t.Fatalf("crash child's hosts run only %v", victims)
	}
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()

	if err := CleanupStale("t*"); err != nil {
		t.Fatalf("CleanupStale: %v", err)
	}
	assertNoLeftovers(t, prefix)
	assertDead(t, victims)
	if cgs := staleCgroups(prefix); len(cgs) > 0 {
		t.Errorf("cgroups left: %v", cgs)
	}
	if _, err := os.Stat(filepath.Join(LockDir, prefix+".lock")); err == nil {
		t.Errorf("lock file of the dead prefix left")
	}
	// The live emulator matched the glob but holds its lock: untouched.
	if got := execOK(t, live, "alive", "hostname"); got != "alive\n" {
		t.Errorf("live host after CleanupStale: %q", got)
	}
}
