//go:build linux

package vmruntime

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

const initReadyTimeout = 15 * time.Second

const markerEnv = "HYPERCOMPUTE_STARTUP_END"

// start boots the host's processes: the init, then the startup script. Caller
// holds h.mu.
func (r *Runtime) start(ctx context.Context, h *host) error {
	if err := h.dirs.prepareBoot(h.spec.StartupScript); err != nil {
		return err
	}
	binds := make([]bindMount, 0, len(privateDirs)+len(privateFiles))
	for _, f := range privateFiles {
		binds = append(binds, bindMount{Source: h.dirs.file(f), Target: f})
	}
	for _, pd := range privateDirs {
		binds = append(binds, bindMount{Source: h.dirs.private(pd.target), Target: pd.target})
	}
	cgs, err := createHostCgroups(h.netns)
	if err != nil {
		h.serial.printf("hypercompute-runtime: running without cgroups of its own: %v", err)
	}
	h.cgroups = cgs
	cfg, err := json.Marshal(initConfig{
		Cgroups:    cgs,
		Hostname:   h.spec.Name,
		RootView:   h.dirs.inRun(inHostRootView),
		SbinLayer:  h.dirs.sbinLayer(),
		SbinFiles:  r.sbinFiles(h.spec),
		Binds:      binds,
		GPUDevices: r.gpuDevices(h.spec),
		DevLayer:   h.dirs.devLayer(),
	})
	if err != nil {
		return err
	}
	if err := os.WriteFile(h.dirs.initConfig(), cfg, 0o600); err != nil {
		return err
	}
	logf, err := os.OpenFile(h.dirs.initLog(), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer statusR.Close()

	// nsenter joins the netns first, then execs this binary as PID 1 of the
	// new namespaces (unlike `ip netns exec`, nothing remounts /sys, so slurmd
	// keeps the cgroup filesystem).
	cmd := exec.Command("nsenter", "--net="+netnsPath(h.netns), "--", r.self)
	cmd.Env = []string{initEnv + "=" + h.dirs.initConfig(), "PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{statusW}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWUTS | syscall.CLONE_NEWIPC | syscall.CLONE_NEWPID,
		Setsid:     true,
		// If the emulator dies, its hosts die with it (the kernel then kills
		// every process in each host's PID namespace); CleanupStale removes
		// the rest.
		Pdeathsig: syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		statusW.Close()
		return fmt.Errorf("starting host init: %w", err)
	}
	statusW.Close()
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()

	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(statusR).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	var status string
	timer := time.NewTimer(initReadyTimeout)
	defer timer.Stop()
	select {
	case status = <-line:
	case <-ctx.Done():
		status = "error: " + ctx.Err().Error()
	case <-timer.C:
		status = "error: host init did not report within " + initReadyTimeout.String()
	}
	if status != "ok" {
		cmd.Process.Kill()
		<-done
		removeHostCgroups(h.cgroups)
		h.cgroups = nil
		out, _ := os.ReadFile(h.dirs.initLog())
		if status == "" {
			status = "host init exited: " + strings.TrimSpace(string(out))
		}
		return errors.New(strings.TrimPrefix(status, "error: "))
	}
	pidNS, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", cmd.Process.Pid))
	if err != nil {
		cmd.Process.Kill()
		<-done
		removeHostCgroups(h.cgroups)
		h.cgroups = nil
		return fmt.Errorf("host init vanished: %w", err)
	}
	h.init, h.initDone, h.pidNS = cmd, done, pidNS
	h.serial.printf("hypercompute-runtime: booted %s (%s/%d on %s)", h.spec.Name, h.spec.IP, h.spec.PrefixLen, h.spec.Network)
	h.boot = &bootRun{done: make(chan struct{})}
	return r.runStartup(h, h.boot)
}

// runStartup runs the startup script as GCE's script runner does: as root
// with bash, output to the serial console, then "startup-script exit status N"
// and "Finished running startup scripts." Caller holds h.mu.
func (r *Runtime) runStartup(h *host, b *bootRun) error {
	if strings.TrimSpace(h.spec.StartupScript) == "" {
		h.serial.printf("No startup scripts to run.")
		b.finish(0)
		return nil
	}
	tok := make([]byte, 8)
	rand.Read(tok)
	marker := "hypercompute-startup-end-" + hex.EncodeToString(tok) + ":"
	// The end marker travels in the output stream itself, so the status line
	// lands after the script's last line even while daemons it started keep
	// the output pipe open. It reaches the wrapper through the environment,
	// not argv, so a script that lists processes (ps -ef) does not print it.
	wrapper := fmt.Sprintf(`end=$%[1]s; unset %[1]s; /bin/bash %[2]s; printf '%%s%%d\n' "$end" "$?"`, markerEnv, inHostScript)
	cmd, err := r.command(h, "/bin/bash", "-c", wrapper)
	if err != nil {
		return err
	}
	cmd.Env = append(cmd.Env, markerEnv+"="+marker)
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	h.serial.printf("Starting startup scripts.")
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return fmt.Errorf("starting startup script: %w", err)
	}
	pw.Close()
	out := &scriptOutput{log: h.serial, marker: []byte(marker), onExit: func(code int) {
		h.serial.printf("startup-script exit status %d", code)
		h.serial.printf("Finished running startup scripts.")
		b.finish(code)
	}}
	go func() {
		io.Copy(out, pr)
		out.flush()
		pr.Close()
	}()
	go func() {
		cmd.Wait()
		// No marker: the script's shell was killed (reset, stop, delete).
		select {
		case <-b.done:
		case <-time.After(2 * time.Second):
			b.finish(-1)
		}
	}()
	return nil
}

// kill ends every process of the host: SIGKILL to its init makes the kernel
// kill the whole PID namespace; the init's exit completes only once all are
// gone. Caller holds h.mu.
func (h *host) kill() error {
	if h.init == nil {
		return nil
	}
	h.init.Process.Kill()
	select {
	case <-h.initDone:
	case <-time.After(20 * time.Second):
		return fmt.Errorf("host %s: init %d did not exit after SIGKILL", h.spec.ID, h.init.Process.Pid)
	}
	if h.boot != nil {
		h.boot.finish(-1)
	}
	h.init, h.initDone = nil, nil
	return nil
}

// dropCgroups removes this boot's cgroups once the host's processes are gone:
// a reboot starts with fresh ones, without the job cgroups Slurm left.
func (h *host) dropCgroups() error {
	err := removeHostCgroups(h.cgroups)
	h.cgroups = nil
	return err
}

func (h *host) running() bool {
	if h.init == nil {
		return false
	}
	select {
	case <-h.initDone:
		return false
	default:
		return true
	}
}
