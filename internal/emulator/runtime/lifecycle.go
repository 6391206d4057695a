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
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

type host struct {
	// mu serializes lifecycle operations on the host.
	mu     sync.Mutex
	spec   HostSpec
	dirs   hostDirs
	netns  string
	veth   string
	serial *serialLog

	closers []io.Closer

	// Set while running, under mu.
	init     *exec.Cmd
	initDone chan struct{}
	pidNS    string // readlink of /proc/<init>/ns/pid, to find the host's processes
	boot     *bootRun
	cgroups  []hostCgroup // this boot's; removed when it ends
}

// bootRun is one boot's startup script.
type bootRun struct {
	done chan struct{}
	once sync.Once
	code int
}

func (b *bootRun) finish(code int) {
	b.once.Do(func() {
		b.code = code
		close(b.done)
	})
}

const initReadyTimeout = 15 * time.Second

const markerEnv = "HYPERCOMPUTE_STARTUP_END"

// Boot creates a host and starts it: namespaces, network, private directories,
// then the startup script in the background (its output goes to the serial
// console; WaitStartup waits for it). Boot returns once the host is up.
func (r *Runtime) Boot(ctx context.Context, spec HostSpec) error {
	if err := spec.normalize(); err != nil {
		return err
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return errors.New("runtime is closed")
	}
	if _, ok := r.hosts[spec.ID]; ok {
		r.mu.Unlock()
		return fmt.Errorf("host %q already exists", spec.ID)
	}
	for _, o := range r.hosts {
		if o.spec.Network == spec.Network && o.spec.IP == spec.IP {
			r.mu.Unlock()
			return fmt.Errorf("host %q: IP %s is already used by %q on network %s", spec.ID, spec.IP, o.spec.ID, spec.Network)
		}
	}
	br, err := r.ensureBridge(spec.Network)
	if err != nil {
		r.mu.Unlock()
		return err
	}
	br.hosts++
	idx := r.nextIdx
	r.nextIdx++
	dir := filepath.Join(r.cfg.StateDir, "hosts", strconv.FormatInt(int64(idx), 36))
	h := &host{
		spec:   spec,
		dirs:   hostDirs{root: dir},
		netns:  netnsName(r.cfg.Prefix, idx),
		veth:   vethName(r.cfg.Prefix, idx),
		serial: &serialLog{path: filepath.Join(dir, "serial.log")},
	}
	r.hosts[spec.ID] = h
	h.mu.Lock() // nobody else sees the host before it is built
	r.mu.Unlock()

	err = r.build(ctx, h, br.name)
	h.mu.Unlock()
	if err != nil {
		if derr := r.deleteHost(spec.ID, true); derr != nil {
			err = errors.Join(err, fmt.Errorf("cleaning up: %w", derr))
		}
		return fmt.Errorf("booting %s: %w", spec.ID, err)
	}
	return nil
}

func (r *Runtime) build(ctx context.Context, h *host, br string) error {
	if err := h.dirs.create(); err != nil {
		return err
	}
	if err := plumbHost(h.netns, h.veth, br, &h.spec); err != nil {
		return err
	}
	if err := r.hostListeners(h); err != nil {
		return err
	}
	if err := writeInPlace(h.dirs.file("/etc/hostname"), []byte(h.spec.Name+"\n")); err != nil {
		return err
	}
	if err := writeInPlace(h.dirs.file("/etc/resolv.conf"), renderResolvConf(&h.spec)); err != nil {
		return err
	}
	var env strings.Builder
	for _, kv := range r.guestEnv() {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&env, "%s=%q\n", k, v)
	}
	if err := writeInPlace(h.dirs.file("/etc/environment"), []byte(env.String())); err != nil {
		return err
	}
	if err := r.refreshHosts(h.spec.Network); err != nil {
		return err
	}
	return r.start(ctx, h)
}

// guestEnv is what every process the runtime starts in a host gets, and what
// /etc/environment holds: how to reach the metadata server and the emulator.
func (r *Runtime) guestEnv() []string {
	env := []string{"GCE_METADATA_HOST=" + MetadataIP, "GCE_METADATA_IP=" + MetadataIP}
	if r.emulatorAddr != "" {
		env = append(env, "HYPERCOMPUTE_EMULATOR_HOST="+EmulatorIP+":80")
	}
	return env
}

func (r *Runtime) processEnv(h *host) []string {
	return append([]string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=/root", "USER=root", "LOGNAME=root", "SHELL=/bin/bash", "LANG=C.UTF-8",
		"HOSTNAME=" + h.spec.Name,
	}, r.guestEnv()...)
}

// refreshHosts rewrites /etc/hosts of every host on a network, so each lists
// its current peers.
func (r *Runtime) refreshHosts(network string) error {
	r.mu.Lock()
	var members []*host
	for _, h := range r.hosts {
		if h.spec.Network == network {
			members = append(members, h)
		}
	}
	r.mu.Unlock()
	var errs []error
	for _, h := range members {
		var peers []*HostSpec
		for _, p := range members {
			if p != h {
				peers = append(peers, &p.spec)
			}
		}
		if err := writeInPlace(h.dirs.file("/etc/hosts"), renderHosts(&h.spec, peers)); err != nil && !os.IsNotExist(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

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

// Reset kills every process of the host and boots it again (reruns the
// startup script), like a hard reset. /run and /tmp start empty; the rest of
// the host's files persist.
func (r *Runtime) Reset(id string) error {
	h, err := r.host(id)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.kill(); err != nil {
		return err
	}
	h.serial.printf("hypercompute-runtime: reset")
	if err := h.dropCgroups(); err != nil {
		h.serial.printf("hypercompute-runtime: %v", err)
	}
	return r.start(context.Background(), h)
}

// Stop kills every process of the host; its files and network stay for Start.
func (r *Runtime) Stop(id string) error {
	h, err := r.host(id)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.init == nil {
		return nil
	}
	if err := h.kill(); err != nil {
		return err
	}
	h.serial.printf("hypercompute-runtime: stopped")
	return h.dropCgroups()
}

// Start boots a stopped host again (a no-op when it runs).
func (r *Runtime) Start(id string) error {
	h, err := r.host(id)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.running() {
		return nil
	}
	if err := h.kill(); err != nil { // reap an init that died on its own
		return err
	}
	if err := h.dropCgroups(); err != nil {
		h.serial.printf("hypercompute-runtime: %v", err)
	}
	return r.start(context.Background(), h)
}

// Delete kills every process of the host and removes its network, namespaces,
// mounts and files.
func (r *Runtime) Delete(id string) error { return r.deleteHost(id, true) }

func (r *Runtime) deleteHost(id string, refresh bool) error {
	h, err := r.host(id)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var errs []error
	if err := h.kill(); err != nil {
		return err // keep the host listed: its processes may still run
	}
	if err := h.dropCgroups(); err != nil {
		errs = append(errs, err)
	}
	for _, c := range h.closers {
		c.Close()
	}
	h.closers = nil
	if err := deleteLink(h.veth); err != nil {
		errs = append(errs, err)
	}
	if err := deleteNetns(h.netns); err != nil {
		errs = append(errs, err)
	}
	if err := os.RemoveAll(h.dirs.root); err != nil {
		errs = append(errs, err)
	}
	r.mu.Lock()
	delete(r.hosts, id)
	if err := r.releaseBridge(h.spec.Network); err != nil {
		errs = append(errs, err)
	}
	r.mu.Unlock()
	if refresh {
		if err := r.refreshHosts(h.spec.Network); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// WaitStartup waits for the current boot's startup script to finish and
// returns its exit status (-1 when the host was stopped or reset before).
func (r *Runtime) WaitStartup(ctx context.Context, id string) (int, error) {
	h, err := r.host(id)
	if err != nil {
		return 0, err
	}
	h.mu.Lock()
	b := h.boot
	h.mu.Unlock()
	if b == nil {
		return 0, fmt.Errorf("host %q: %w", id, ErrNotRunning)
	}
	select {
	case <-b.done:
		return b.code, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// SerialOutput returns the host's serial console from byte offset start, and
// the offset to pass next time.
func (r *Runtime) SerialOutput(id string, start int64) (string, int64, error) {
	h, err := r.host(id)
	if err != nil {
		return "", 0, err
	}
	return h.serial.read(start)
}
