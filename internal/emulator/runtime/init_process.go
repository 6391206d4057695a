//go:build linux

package vmruntime

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// initEnv, when set to an init config path, turns any binary that links this
// package into a host's init: the runtime starts its own executable under
// `nsenter --net=...` in fresh mount/uts/ipc/pid namespaces, and this hook
// (run before main or the test main) sets the host up and then reaps orphans
// as PID 1 for the host's life.
const initEnv = "HYPERCOMPUTE_RUNTIME_INIT"

func init() {
	path := os.Getenv(initEnv)
	if path == "" {
		return
	}
	os.Exit(runInit(path))
}

type bindMount struct {
	Source string `json:"source"`
	Target string `json:"target"`
}

type initConfig struct {
	Hostname  string      `json:"hostname"`
	RootView  string      `json:"root_view"`  // machine path that becomes /run/hypercompute/rootfs
	SbinLayer string      `json:"sbin_layer"` // empty dir; a tmpfs here holds the overlay's upper layer
	Binds     []bindMount `json:"binds"`      // in order; /run last
	// Cgroups to move into before entering a new cgroup namespace; each Dir is
	// then bound over its Mountpoint.
	Cgroups []hostCgroup `json:"cgroups"`
	// SbinFiles are further executables in /usr/sbin of this host (the GPU tool stand-ins).
	SbinFiles map[string][]byte `json:"sbin_files,omitempty"`
	// GPUDevices: /dev/nvidia0..N-1 and /dev/nvidiactl on an overlay of /dev whose upper layer is
	// a tmpfs here (DevLayer, an empty dir).
	GPUDevices int    `json:"gpu_devices,omitempty"`
	DevLayer   string `json:"dev_layer,omitempty"`
}

// runInit sets up the host and reports on fd 3 ("ok" or the error), then reaps.
func runInit(path string) int {
	status := os.NewFile(3, "status")
	fail := func(err error) int {
		fmt.Fprintf(status, "error: %v\n", err)
		fmt.Fprintf(os.Stderr, "host init: %v\n", err)
		return 1
	}
	if os.Getpid() != 1 {
		return fail(fmt.Errorf("%s set but not running as PID 1 of a new PID namespace", initEnv))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fail(err)
	}
	var cfg initConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		return fail(err)
	}
	if err := setupHost(&cfg); err != nil {
		return fail(err)
	}
	fmt.Fprintln(status, "ok")
	status.Close()
	reap()
	return 0
}

func setupHost(cfg *initConfig) error {
	// Package init runs on the main thread, locked to it, so the cgroup
	// namespace entered here is the process's (what /proc/1/ns/cgroup shows
	// and what nsenter joins).
	for _, cg := range cfg.Cgroups {
		if err := os.WriteFile(cg.Dir+"/cgroup.procs", []byte("0\n"), 0o644); err != nil {
			return fmt.Errorf("joining cgroup %s: %w", cg.Dir, err)
		}
	}
	if len(cfg.Cgroups) > 0 {
		if err := unix.Unshare(unix.CLONE_NEWCGROUP); err != nil {
			return fmt.Errorf("new cgroup namespace: %w", err)
		}
	}
	// Nothing done here may propagate back to the machine.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	// The copies of other hosts' netns files would keep those namespaces alive.
	if err := detachUnder("/run/netns"); err != nil {
		return err
	}
	if err := unix.Sethostname([]byte(cfg.Hostname)); err != nil {
		return fmt.Errorf("sethostname: %w", err)
	}
	// Open every bind source before anything is mounted over, so a source under
	// /tmp or /run still means the machine's path.
	fds := make([]int, len(cfg.Binds))
	for i, b := range cfg.Binds {
		fd, err := unix.Open(b.Source, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("bind source %s: %w", b.Source, err)
		}
		fds[i] = fd
	}
	if err := overlayMountHelpers(cfg.SbinLayer, cfg.SbinFiles); err != nil {
		return fmt.Errorf("mount helpers on /usr/sbin: %w", err)
	}
	if cfg.GPUDevices > 0 {
		if err := overlayGPUDevices(cfg.DevLayer, cfg.GPUDevices); err != nil {
			return fmt.Errorf("GPU device files in /dev: %w", err)
		}
	}
	if err := unix.Mount("/", cfg.RootView, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("root view: %w", err)
	}
	// Read-only, recursively: a guest's `rm -rf /run/...` must not reach the
	// machine's files through the view. The mount helpers make their own
	// bind of a backing directory writable again.
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, cfg.RootView, unix.AT_RECURSIVE, &attr); err != nil {
		return fmt.Errorf("making the root view read-only: %w", err)
	}
	for i, b := range cfg.Binds {
		src := fmt.Sprintf("/proc/self/fd/%d", fds[i])
		if err := unix.Mount(src, b.Target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s on %s: %w", b.Source, b.Target, err)
		}
		unix.Close(fds[i])
	}
	if len(cfg.Cgroups) > 0 {
		if err := hostSysfs(cfg.Cgroups); err != nil {
			return err
		}
	}
	if err := unix.Mount("shm", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
		return fmt.Errorf("/dev/shm: %w", err)
	}
	// Last: after this /proc shows only the host's processes, so pid files and
	// `ps` inside the host make sense.
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("/proc: %w", err)
	}
	return nil
}

// hostSysfs mounts a sysfs of the host's netns on /sys (so /sys/class/net
// lists eth0 and lo, not the machine's links) and rebuilds /sys/fs/cgroup on
// it from the host's cgroups: the step `ip netns exec` misses, which is why
// slurmd loses its cgroups there.
func hostSysfs(cgs []hostCgroup) error {
	const root = "/sys/fs/cgroup"
	fds := make([]int, len(cgs))
	for i, cg := range cgs {
		fd, err := unix.Open(cg.Dir, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("host cgroup %s: %w", cg.Dir, err)
		}
		fds[i] = fd
	}
	// The machine's /sys/fs/cgroup may hold links such as cpu -> cpu,cpuacct.
	links := map[string]string{}
	if entries, err := os.ReadDir(root); err == nil {
		for _, e := range entries {
			if e.Type()&os.ModeSymlink != 0 {
				if target, err := os.Readlink(root + "/" + e.Name()); err == nil {
					links[e.Name()] = target
				}
			}
		}
	}
	if err := unix.Mount("sysfs", "/sys", "sysfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("/sys: %w", err)
	}
	unified := len(cgs) == 1 && cgs[0].Mountpoint == root
	if !unified {
		if err := unix.Mount("cgroup", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=755"); err != nil {
			return fmt.Errorf("%s: %w", root, err)
		}
		for name, target := range links {
			if err := os.Symlink(target, root+"/"+name); err != nil {
				return err
			}
		}
	}
	for i, cg := range cgs {
		if err := os.MkdirAll(cg.Mountpoint, 0o755); err != nil {
			return err
		}
		src := fmt.Sprintf("/proc/self/fd/%d", fds[i])
		if err := unix.Mount(src, cg.Mountpoint, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind cgroup %s on %s: %w", cg.Dir, cg.Mountpoint, err)
		}
		unix.Close(fds[i])
	}
	return nil
}

// overlayMountHelpers adds the mount helpers to /usr/sbin (/sbin is a link to
// it on Debian) of this host only. The upper layer lives on a tmpfs private to
// the host, so it works whatever filesystem StateDir is on, and each boot
// starts from the helpers this binary carries.
func overlayMountHelpers(layer string, extra map[string][]byte) error {
	if err := unix.Mount("sbin-layer", layer, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=700,size=4m"); err != nil {
		return err
	}
	upper, work := layer+"/upper", layer+"/work"
	for _, d := range []string{upper, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	for _, name := range mountHelperNames {
		if err := os.WriteFile(upper+"/"+name, mountHelper, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(upper+"/mount.gcsfuse", gcsfuseMountHelper, 0o755); err != nil {
		return err
	}
	if err := writeSbinFiles(upper, extra); err != nil {
		return err
	}
	opts := fmt.Sprintf("lowerdir=/usr/sbin,upperdir=%s,workdir=%s", upper, work)
	return unix.Mount("overlay", "/usr/sbin", "overlay", 0, opts)
}

// detachUnder lazily unmounts every mount at or below dir, deepest first.
func detachUnder(dir string) error {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	defer f.Close()
	var points []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		mp := unescapeMount(fields[4])
		if mp == dir || strings.HasPrefix(mp, dir+"/") {
			points = append(points, mp)
		}
	}
	sort.Slice(points, func(i, j int) bool { return len(points[i]) > len(points[j]) })
	for _, mp := range points {
		if err := unix.Unmount(mp, unix.MNT_DETACH); err != nil && err != unix.EINVAL && err != unix.ENOENT {
			return fmt.Errorf("detaching %s: %w", mp, err)
		}
	}
	return sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for space, ...).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%3o", &v); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// reap waits for orphans forever: as PID 1 of the host every double-forked
// daemon ends up as its child.
func reap() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, unix.SIGCHLD)
	for {
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
		<-sig
	}
}
