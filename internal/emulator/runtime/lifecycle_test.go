//go:build linux

package vmruntime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// daemonScript counts boots in the persistent /var/log and leaves daemons
// behind the way munged and slurmd do (double fork, new session).
const daemonScript = `echo "boot number $(( $(cat /var/log/boots 2>/dev/null | wc -l) + 1 ))"
echo x >> /var/log/boots
setsid -f sleep 1000
sleep 1000 &
disown
echo "tmp had: $(ls /tmp | wc -l) files"
touch /tmp/scratch
`

func TestResetStopStartDelete(t *testing.T) {
	r := newTestRuntime(t, Config{})
	bootOK(t, r, HostSpec{Name: "life", Network: "n", IP: "10.8.0.2", StartupScript: daemonScript})
	if code := waitStartup(t, r, "life"); code != 0 {
		t.Fatalf("startup exit %d", code)
	}
	if len(r.hosts["life"].cgroups) > 0 {
		// Commands run in the host's own cgroups, which it sees as the root.
		for _, line := range strings.Split(strings.TrimSpace(execOK(t, r, "life", "cat", "/proc/self/cgroup")), "\n") {
			if !strings.HasSuffix(line, ":/") {
				t.Errorf("command outside the host's cgroup: %s", line)
			}
		}
		// Its own sysfs: the host's links only.
		if got := execOK(t, r, "life", "ls", "/sys/class/net"); got != "eth0\nlo\n" {
			t.Errorf("/sys/class/net in the host: %q", got)
		}
	}
	first := hostPids(t, r, "life")
	if len(first) < 3 { // init and two sleeps at least
		t.Fatalf("host processes after boot: %v", first)
	}

	if err := r.Reset("life"); err != nil {
		t.Fatal(err)
	}
	waitStartup(t, r, "life")
	assertDead(t, first)
	serial, _, _ := r.SerialOutput("life", 0)
	if !strings.Contains(serial, "startup-script: boot number 2") {
		t.Errorf("reset did not rerun the startup script:\n%s", serial)
	}
	if !strings.Contains(serial, "startup-script: tmp had: 0 files") || strings.Contains(serial, "tmp had: 1 files") {
		t.Errorf("/tmp survived a reset:\n%s", serial)
	}
	if n := strings.Count(serial, "Finished running startup scripts."); n != 2 {
		t.Errorf("startup finished %d times, want 2:\n%s", n, serial)
	}

	second := hostPids(t, r, "life")
	if err := r.Stop("life"); err != nil {
		t.Fatal(err)
	}
	assertDead(t, second)
	if pids, _ := r.Pids("life"); len(pids) != 0 {
		t.Errorf("stopped host still has processes %v", pids)
	}
	if _, _, err := r.Exec(context.Background(), "life", "true"); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Exec on a stopped host: %v, want ErrNotRunning", err)
	}
	if err := r.Start("life"); err != nil {
		t.Fatal(err)
	}
	waitStartup(t, r, "life")
	_, next, _ := r.SerialOutput("life", 0)
	tail, _, _ := r.SerialOutput("life", int64(len(serial)))
	if !strings.Contains(tail, "boot number 3") || next != int64(len(serial)+len(tail)) {
		t.Errorf("serial output from offset %d after start: %q (next %d)", len(serial), tail, next)
	}

	third := hostPids(t, r, "life")
	if err := r.Delete("life"); err != nil {
		t.Fatal(err)
	}
	assertDead(t, third)
	if _, err := r.Pids("life"); !errors.Is(err, ErrNoHost) {
		t.Errorf("Pids after delete: %v", err)
	}
	assertNoLeftovers(t, r.cfg.Prefix)
}

func TestFailingStartupScriptShowsInSerial(t *testing.T) {
	r := newTestRuntime(t, Config{})
	bootOK(t, r, HostSpec{Name: "bad", Network: "n", IP: "10.9.0.2",
		StartupScript: "echo configuring\nls /no/such/dir\nexit 3"})
	if code := waitStartup(t, r, "bad"); code != 3 {
		t.Errorf("exit status %d, want 3", code)
	}
	serial, _, _ := r.SerialOutput("bad", 0)
	for _, want := range []string{
		"startup-script: configuring",
		"startup-script: ls: cannot access '/no/such/dir': No such file or directory",
		"startup-script exit status 3",
	} {
		if !strings.Contains(serial, want) {
			t.Errorf("serial lacks %q:\n%s", want, serial)
		}
	}
	if i, j := strings.Index(serial, "cannot access"), strings.Index(serial, "exit status 3"); i > j {
		t.Errorf("exit status logged before the script's output:\n%s", serial)
	}
}

func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// state follows the parenthesized command name
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func hostPids(t *testing.T, r *Runtime, id string) []int {
	t.Helper()
	pids, err := r.Pids(id)
	if err != nil {
		t.Fatal(err)
	}
	return pids
}

// assertDead waits briefly for the kernel to finish killing, then requires
// every PID to be gone or a zombie (its parent outside the host may reap late).
func assertDead(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("process %d survived", pid)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
