//go:build linux

package vmruntime

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Runtime boots and tracks the hosts of one emulator.
type Runtime struct {
	cfg          Config
	self         string // executable re-run as each host's init
	emulatorAddr string // host:port the 169.254.169.253 proxy dials
	lock         *os.File

	mu      sync.Mutex
	closed  bool
	hosts   map[string]*host
	bridges map[string]*bridge // by HostSpec.Network
	nextIdx int
}

var prefixRE = regexp.MustCompile(`^[a-z0-9]{1,8}$`)

// requiredTools are the programs the runtime runs on the root side or that the
// mount helpers run inside hosts.
var requiredTools = []string{"ip", "nsenter", "bash", "mount", "curl"}

// Available reports why the local runtime cannot run here, or nil.
func Available() error {
	if _, err := os.Stat("/proc/self/ns/pid"); err != nil {
		return fmt.Errorf("%w: needs Linux with namespaces (/proc/self/ns/pid: %v)", ErrUnavailable, err)
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: needs root (running as uid %d)", ErrUnavailable, os.Geteuid())
	}
	var missing []string
	for _, t := range requiredTools {
		if _, err := exec.LookPath(t); err != nil {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: missing tools %s (run scripts/install-deps.sh)", ErrUnavailable, strings.Join(missing, ", "))
	}
	fs, err := os.ReadFile("/proc/filesystems")
	if err != nil || !strings.Contains(string(fs), "\toverlay\n") {
		return fmt.Errorf("%w: kernel lacks overlayfs (needed for the mount helpers)", ErrUnavailable)
	}
	return nil
}

// New checks the machine, takes the prefix lock, removes leftovers a crashed
// emulator with the same prefix left, and prepares StateDir.
func New(cfg Config) (*Runtime, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if !prefixRE.MatchString(cfg.Prefix) {
		return nil, fmt.Errorf("runtime prefix %q: want 1-8 characters [a-z0-9] (it names network interfaces, limited to 15 characters)", cfg.Prefix)
	}
	if cfg.StateDir == "" || !filepath.IsAbs(cfg.StateDir) {
		return nil, fmt.Errorf("runtime state dir %q: want an absolute path", cfg.StateDir)
	}
	r := &Runtime{cfg: cfg, hosts: map[string]*host{}, bridges: map[string]*bridge{}}
	if cfg.EmulatorURL != "" {
		u, err := url.Parse(cfg.EmulatorURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("emulator URL %q: want http://host:port", cfg.EmulatorURL)
		}
		r.emulatorAddr = u.Host
		if u.Port() == "" {
			r.emulatorAddr = u.Host + ":80"
		}
	}
	// The running binary, even if its file is replaced or deleted meanwhile.
	r.self = fmt.Sprintf("/proc/%d/exe", os.Getpid())

	lock, ok, err := lockPrefix(cfg.Prefix)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("runtime prefix %q is in use by another live emulator", cfg.Prefix)
	}
	r.lock = lock
	if err := cleanupPrefix(cfg.Prefix); err != nil {
		r.unlock()
		return nil, fmt.Errorf("removing leftovers of prefix %q: %w", cfg.Prefix, err)
	}
	hostsDir := filepath.Join(cfg.StateDir, "hosts")
	if err := os.RemoveAll(hostsDir); err != nil {
		r.unlock()
		return nil, err
	}
	if err := os.MkdirAll(hostsDir, 0o755); err != nil {
		r.unlock()
		return nil, err
	}
	return r, nil
}

// Hosts lists the IDs of the hosts the runtime holds (running or stopped).
func (r *Runtime) Hosts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := make([]string, 0, len(r.hosts))
	for id := range r.hosts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Close deletes every host and bridge and releases the prefix. Nothing the
// runtime created remains in the root namespace afterwards.
func (r *Runtime) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	ids := make([]string, 0, len(r.hosts))
	for id := range r.hosts {
		ids = append(ids, id)
	}
	r.mu.Unlock()

	var errs []error
	for _, id := range ids {
		if err := r.deleteHost(id, false); err != nil {
			errs = append(errs, err)
		}
	}
	r.mu.Lock()
	for key, b := range r.bridges {
		if err := deleteLink(b.name); err != nil {
			errs = append(errs, err)
		}
		delete(r.bridges, key)
	}
	r.mu.Unlock()
	// Sweep by prefix too, so a half-built host from a failed Boot goes as well.
	if err := cleanupPrefix(r.cfg.Prefix); err != nil {
		errs = append(errs, err)
	}
	if err := os.RemoveAll(filepath.Join(r.cfg.StateDir, "hosts")); err != nil {
		errs = append(errs, err)
	}
	r.unlock()
	return errors.Join(errs...)
}

func (r *Runtime) unlock() {
	if r.lock != nil {
		os.Remove(r.lock.Name())
		r.lock.Close()
		r.lock = nil
	}
}

func (r *Runtime) host(id string) (*host, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.hosts[id]
	if !ok {
		return nil, fmt.Errorf("host %q: %w", id, ErrNoHost)
	}
	return h, nil
}
