//go:build linux

package vmruntime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// command prepares argv to run as root inside the host's namespaces (all of
// them, joined through its init). Caller holds h.mu.
func (r *Runtime) command(h *host, argv ...string) (*exec.Cmd, error) {
	if !h.running() {
		return nil, fmt.Errorf("host %q: %w", h.spec.ID, ErrNotRunning)
	}
	if len(argv) == 0 {
		return nil, errors.New("no command")
	}
	args := []string{"--target", strconv.Itoa(h.init.Process.Pid),
		"--mount", "--uts", "--ipc", "--net", "--pid", "--wd=/"}
	if len(h.cgroups) > 0 {
		// Inside, /sys/fs/cgroup/* are the host's cgroups: move in first, so
		// the command counts as the host's for every controller.
		args = append(args, "--cgroup", "--", "/bin/sh", "-c", joinCgroups, "sh")
	} else {
		args = append(args, "--")
	}
	args = append(args, argv...)
	cmd := exec.Command("nsenter", args...)
	cmd.Env = r.processEnv(h)
	return cmd, nil
}

const joinCgroups = `for f in /sys/fs/cgroup/cgroup.procs /sys/fs/cgroup/*/cgroup.procs; do
  [ -w "$f" ] && echo $$ > "$f"
done 2>/dev/null
exec "$@"`

// Command returns an unstarted command that runs argv as root inside the host,
// with the host's environment (GCE_METADATA_HOST, ...). The caller may set
// Stdin/Stdout/Stderr and Start it; its processes die with the host.
func (r *Runtime) Command(id string, argv ...string) (*exec.Cmd, error) {
	h, err := r.host(id)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return r.command(h, argv...)
}

// Exec runs argv as root inside the host and returns its output. A non-zero
// exit is an *exec.ExitError. Background processes it leaves holding stdout
// do not block it for more than a second after it exits.
func (r *Runtime) Exec(ctx context.Context, id string, argv ...string) (stdout, stderr []byte, err error) {
	cmd, err := r.Command(id, argv...)
	if err != nil {
		return nil, nil, err
	}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	stop := context.AfterFunc(ctx, func() { cmd.Process.Kill() })
	err = cmd.Wait()
	stop()
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // it exited 0; a daemon it started kept the pipe
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("%v: %w", err, ctx.Err())
	}
	return so.Bytes(), se.Bytes(), err
}

// Pids lists the host's processes (PIDs as the machine sees them).
func (r *Runtime) Pids(id string) ([]int, error) {
	h, err := r.host(id)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	ns := h.pidNS
	h.mu.Unlock()
	if ns == "" {
		return nil, nil
	}
	return pidsWithNS("pid", ns), nil
}

// pidsWithNS scans /proc for processes whose namespace of kind (net, pid,
// mnt) has the given identity ("pid:[4026532]"). Zombies have none and are
// not listed.
func pidsWithNS(kind, ident string) []int {
	matches, _ := filepath.Glob("/proc/[0-9]*/ns/" + kind)
	var pids []int
	for _, m := range matches {
		link, err := os.Readlink(m)
		if err != nil || link != ident {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(m))))
		if err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}
