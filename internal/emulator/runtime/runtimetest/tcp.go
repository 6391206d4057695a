// Package runtimetest holds test helpers for code that runs hosts on the local VM runtime. It does
// not import the runtime, so the runtime's own tests can use it too.
package runtimetest

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Hosts runs commands on hosts by ID, as vmruntime.Runtime does.
type Hosts interface {
	Command(id string, argv ...string) (*exec.Cmd, error)
	Exec(ctx context.Context, id string, argv ...string) (stdout, stderr []byte, err error)
}

// TCPRoundTrip sends a line from host from to a one-shot listener on host to (port 7000), reached
// at addr (an address or a name to resolve), and fails t unless the listener receives it within
// ten seconds.
func TCPRoundTrip(t testing.TB, h Hosts, from, to, addr string) {
	t.Helper()
	listener, err := h.Command(to, "timeout", "10", "nc", "-l", "7000")
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	listener.Stdout = &got
	if err := listener.Start(); err != nil {
		t.Fatal(err)
	}
	msg := "hello-from-" + from
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, stderr, err := h.Exec(ctx, from, "bash", "-c", fmt.Sprintf("echo %s | nc -N -w 2 %s 7000", msg, addr))
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = listener.Process.Kill()
			_ = listener.Wait()
			t.Fatalf("%s cannot reach %s:7000: %v %s", from, addr, err, stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := listener.Wait(); err != nil {
		t.Fatalf("listener on %s: %v", to, err)
	}
	if strings.TrimSpace(got.String()) != msg {
		t.Errorf("%s received %q from %s via %s, want %q", to, got.String(), from, addr, msg)
	}
}
