//go:build linux

package vmruntime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// testPrefix is unique per test so parallel packages and reruns never share
// interfaces; "t" keeps it apart from real emulators' prefixes.
func testPrefix(t *testing.T) string {
	b := make([]byte, 3)
	rand.Read(b)
	return "t" + hex.EncodeToString(b)
}

// newTestRuntime skips with the reason when the machine cannot run hosts, and
// checks after Close that nothing of the prefix remains.
func newTestRuntime(t *testing.T, cfg Config) *Runtime {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	if cfg.Prefix == "" {
		cfg.Prefix = testPrefix(t)
	}
	if cfg.StateDir == "" {
		cfg.StateDir = t.TempDir()
	}
	r, err := New(cfg)
	if err != nil {
		if errors.Is(err, ErrUnavailable) {
			t.Skipf("skipping: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var pids []int
		for _, id := range r.Hosts() {
			p, _ := r.Pids(id)
			pids = append(pids, p...)
		}
		if err := r.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		assertNoLeftovers(t, cfg.Prefix)
		assertDead(t, pids)
		if cgs := staleCgroups(cfg.Prefix); len(cgs) > 0 {
			t.Errorf("cgroups left after Close: %v", cgs)
		}
		mounts, _ := os.ReadFile("/proc/mounts")
		if strings.Contains(string(mounts), cfg.StateDir) {
			t.Errorf("a mount of the state dir leaked into the machine's namespace")
		}
	})
	return r
}

// assertNoLeftovers checks what a user would: ip netns, ip link, /proc/mounts.
func assertNoLeftovers(t *testing.T, prefix string) {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").CombinedOutput()
	if err != nil {
		t.Errorf("ip netns list: %v %s", err, out)
	}
	if strings.Contains(string(out), prefix+"-") {
		t.Errorf("netns left after cleanup:\n%s", out)
	}
	out, err = exec.Command("ip", "-o", "link", "show").CombinedOutput()
	if err != nil {
		t.Errorf("ip link: %v %s", err, out)
	}
	if strings.Contains(string(out), prefix+"-") {
		t.Errorf("links left after cleanup:\n%s", out)
	}
	mounts, _ := os.ReadFile("/proc/mounts")
	if strings.Contains(string(mounts), prefix+"-") {
		t.Errorf("mounts left after cleanup:\n%s", mounts)
	}
}

func bootOK(t *testing.T, r *Runtime, spec HostSpec) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := r.Boot(ctx, spec); err != nil {
		t.Fatal(err)
	}
}

func waitStartup(t *testing.T, r *Runtime, id string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, err := r.WaitStartup(ctx, id)
	if err != nil {
		serial, _, _ := r.SerialOutput(id, 0)
		t.Fatalf("waiting for %s's startup script: %v\nserial:\n%s", id, err, serial)
	}
	return code
}

func execOK(t *testing.T, r *Runtime, id string, argv ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, stderr, err := r.Exec(ctx, id, argv...)
	if err != nil {
		t.Fatalf("in %s: %q: %v\nstdout: %s\nstderr: %s", id, argv, err, out, stderr)
	}
	return string(out)
}
