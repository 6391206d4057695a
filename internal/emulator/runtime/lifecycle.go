//go:build linux

package vmruntime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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
