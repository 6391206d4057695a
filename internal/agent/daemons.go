package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// daemon is a long-running program the agent keeps running: munged,
// slurmctld, slurmrestd or slurmd. Argv runs it in the foreground; the
// supervisor decides how it is kept alive.
type daemon struct {
	// Name is the systemd unit's name (without ".service") and the base of
	// the agent's pid and output files.
	Name string
	Argv []string
	// User runs it; empty is root.
	User string
	Env  []string
	// Slurmd needs its cgroups delegated and its jobs to outlive it.
	Delegate     bool
	KeepChildren bool
}

// supervisor starts and watches daemons. Where systemd is PID 1 each daemon
// is a unit the agent writes (so cgroups, restarts and the journal work as
// on any Slurm host); elsewhere (the local cloud's VMs) the agent starts
// the process in a session of its own and tracks it with a pid file.
type supervisor interface {
	running(d daemon) bool
	// start starts d unless it is running; restart always (re)starts it.
	start(ctx context.Context, d daemon) error
	restart(ctx context.Context, d daemon) error
	// stop stops d where it runs (a daemon a configuration no longer asks for).
	stop(ctx context.Context, d daemon) error
	// describe says where to look when d misbehaves (its output's tail).
	describe(d daemon) string
}

// systemdRunning reports whether systemd manages this machine (sd_booted).
func systemdRunning() bool {
	fi, err := os.Stat("/run/systemd/system")
	return err == nil && fi.IsDir()
}

func newSupervisor(log *slog.Logger) supervisor {
	if systemdRunning() {
		return &systemdSupervisor{log: log, unitDir: "/etc/systemd/system"}
	}
	return &processSupervisor{log: log, runDir: "/run/hypercompute/daemons", logDir: "/var/log/hypercompute"}
}

// processSupervisor runs daemons as children in sessions of their own.
type processSupervisor struct {
	log            *slog.Logger
	runDir, logDir string
}

func (p *processSupervisor) pidFile(d daemon) string { return filepath.Join(p.runDir, d.Name+".pid") }
func (p *processSupervisor) outFile(d daemon) string { return filepath.Join(p.logDir, d.Name+".log") }

func (p *processSupervisor) pid(d daemon) int {
	b, err := os.ReadFile(p.pidFile(d))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 || !processAlive(pid, filepath.Base(d.Argv[0])) {
		return 0
	}
	return pid
}

// processAlive reports whether pid runs program (its argv[0] base name),
// so a pid reused by another program does not count, and a zombie neither.
func processAlive(pid int, program string) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	argv0, _, _ := strings.Cut(string(cmdline), "\x00")
	return filepath.Base(argv0) == program
}

func (p *processSupervisor) running(d daemon) bool { return p.pid(d) != 0 }

func (p *processSupervisor) start(ctx context.Context, d daemon) error {
	if p.running(d) {
		return nil
	}
	return p.launch(d)
}

func (p *processSupervisor) restart(ctx context.Context, d daemon) error {
	if pid := p.pid(d); pid != 0 {
		if err := stopProcess(ctx, pid, filepath.Base(d.Argv[0]), 15*time.Second); err != nil {
			return fmt.Errorf("stopping %s: %w", d.Name, err)
		}
	}
	return p.launch(d)
}

func (p *processSupervisor) stop(ctx context.Context, d daemon) error {
	if pid := p.pid(d); pid != 0 {
		if err := stopProcess(ctx, pid, filepath.Base(d.Argv[0]), 15*time.Second); err != nil {
			return fmt.Errorf("stopping %s: %w", d.Name, err)
		}
	}
	os.Remove(p.pidFile(d))
	return nil
}

func (p *processSupervisor) launch(d daemon) error {
	for _, dir := range []string{p.runDir, p.logDir} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	out, err := os.OpenFile(p.outFile(d), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o640)
	if err != nil {
		return fmt.Errorf("starting %s: %w", d.Name, err)
	}
	defer out.Close()
	cmd := exec.Command(d.Argv[0], d.Argv[1:]...)
	cmd.Env = append(os.Environ(), d.Env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Dir = "/"
	// A session of its own: the daemon outlives the agent (an agent
	// upgrade must not stop slurmctld) and no terminal signal reaches it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if d.User != "" && d.User != "root" {
		acct, err := lookupAccount(d.User, d.Name)
		if err != nil {
			return err
		}
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(acct.UID), Gid: uint32(acct.GID)}
		cmd.Env = append(cmd.Env, "HOME=/", "USER="+d.User, "LOGNAME="+d.User)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", d.Name, err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait() // reap it while this agent lives; after that, the init does
		close(exited)
	}()
	if err := os.WriteFile(p.pidFile(d), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		return err
	}
	p.log.Info("started", "daemon", d.Name, "pid", cmd.Process.Pid, "argv", strings.Join(d.Argv, " "), "user", d.User)
	// Most configuration mistakes make a daemon exit at once; catch those
	// here with the daemon's own words.
	select {
	case <-exited:
		return fmt.Errorf("%s exited at start (%s); %s", d.Name, cmd.ProcessState, p.describe(d))
	case <-time.After(300 * time.Millisecond):
	}
	return nil
}

func (p *processSupervisor) describe(d daemon) string {
	b, err := os.ReadFile(p.outFile(d))
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		return "it wrote nothing to " + p.outFile(d)
	}
	return "its output ends: " + lastLines(string(b), 6)
}

// stopProcess sends SIGTERM, then SIGKILL after grace.
func stopProcess(ctx context.Context, pid int, program string, grace time.Duration) error {
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return err
	}
	deadline, killed := time.Now().Add(grace), false
	for processAlive(pid, program) {
		if time.Now().After(deadline) {
			if killed {
				return fmt.Errorf("pid %d survived SIGKILL", pid)
			}
			syscall.Kill(pid, syscall.SIGKILL)
			deadline, killed = time.Now().Add(5*time.Second), true
		}
		if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// systemdSupervisor keeps each daemon in a unit of its own.
type systemdSupervisor struct {
	log     *slog.Logger
	unitDir string
}

// unitFile renders d's unit. It replaces any unit of the same name the
// image's packages ship, so the daemon runs exactly as the agent renders it
// (configless slurmd's --conf-server, slurmrestd's plugins and listener).
func unitFile(d daemon) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# generated by hypercompute-agent; do not edit.\n[Unit]\nDescription=%s (hypercompute)\nAfter=network-online.target remote-fs.target\nWants=network-online.target\n\n[Service]\nType=simple\n", d.Name)
	if d.User != "" && d.User != "root" {
		fmt.Fprintf(&b, "User=%s\n", d.User)
	}
	for _, e := range d.Env {
		fmt.Fprintf(&b, "Environment=%s\n", systemdQuote(e))
	}
	quoted := make([]string, len(d.Argv))
	for i, a := range d.Argv {
		quoted[i] = systemdQuote(a)
	}
	fmt.Fprintf(&b, "ExecStart=%s\n", strings.Join(quoted, " "))
	b.WriteString("Restart=on-failure\nRestartSec=5\nLimitNOFILE=131072\n")
	if d.Delegate {
		b.WriteString("Delegate=yes\nLimitMEMLOCK=infinity\nLimitSTACK=infinity\n")
	}
	if d.KeepChildren {
		b.WriteString("KillMode=process\n")
	}
	return b.String()
}

// systemdQuote quotes a word for a unit file when it needs quoting.
func systemdQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'\\;$%") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", "$$", "%", "%%")
	return `"` + r.Replace(s) + `"`
}

func (s *systemdSupervisor) unitPath(d daemon) string {
	return filepath.Join(s.unitDir, d.Name+".service")
}

func (s *systemdSupervisor) install(ctx context.Context, d daemon) (bool, error) {
	changed, err := writeFile(s.unitPath(d), []byte(unitFile(d)), 0o644, rootAccount)
	if err != nil {
		return false, err
	}
	if changed {
		if _, err := runCommand(ctx, nil, "systemctl", "daemon-reload"); err != nil {
			return false, err
		}
	}
	return changed, nil
}

func (s *systemdSupervisor) running(d daemon) bool {
	_, err := runCommand(context.Background(), nil, "systemctl", "is-active", "--quiet", d.Name+".service")
	return err == nil
}

func (s *systemdSupervisor) start(ctx context.Context, d daemon) error {
	changed, err := s.install(ctx, d)
	if err != nil {
		return err
	}
	verb := "start"
	if changed {
		verb = "restart"
	}
	if _, err := runCommand(ctx, nil, "systemctl", verb, d.Name+".service"); err != nil {
		return fmt.Errorf("%w; %s", err, s.describe(d))
	}
	return nil
}

func (s *systemdSupervisor) restart(ctx context.Context, d daemon) error {
	if _, err := s.install(ctx, d); err != nil {
		return err
	}
	if _, err := runCommand(ctx, nil, "systemctl", "restart", d.Name+".service"); err != nil {
		return fmt.Errorf("%w; %s", err, s.describe(d))
	}
	return nil
}

func (s *systemdSupervisor) stop(ctx context.Context, d daemon) error {
	if _, err := os.Stat(s.unitPath(d)); err != nil {
		return nil
	}
	if _, err := runCommand(ctx, nil, "systemctl", "stop", d.Name+".service"); err != nil {
		return fmt.Errorf("stopping %s: %w", d.Name, err)
	}
	return nil
}

func (s *systemdSupervisor) describe(d daemon) string {
	out, _ := runCommand(context.Background(), nil, "journalctl", "-u", d.Name+".service", "-n", "6", "--no-pager", "-o", "cat")
	if out == "" {
		return "see journalctl -u " + d.Name
	}
	return "its journal ends: " + out
}
