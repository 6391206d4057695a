//go:build linux

package vmruntime

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// NVIDIA's character devices: /dev/nvidiaN is major 195 minor N, /dev/nvidiactl minor 255.
const (
	nvidiaMajor    = 195
	nvidiaCtlMinor = 255
)

// gpuDevices is how many GPU device files a host gets at this boot.
func (r *Runtime) gpuDevices(spec HostSpec) int {
	if r.cfg.GPUDevices == nil {
		return 0
	}
	return r.cfg.GPUDevices(spec.ID)
}

// devSubmounts are the machine's mounts under /dev a host keeps seeing through the overlay
// (an overlay shows the lower filesystem alone, not what is mounted on it). /dev/shm is mounted
// by setupHost afterwards.
var devSubmounts = []string{"pts", "mqueue", "hugepages"}

// overlayGPUDevices gives this host /dev/nvidia0..n-1 and /dev/nvidiactl, the device files
// gres.conf names and slurmd checks, without touching the machine's /dev: an overlay on /dev
// whose upper layer, on a tmpfs private to the host (allowing device nodes), holds them. No
// driver answers them; the GPU tool stand-ins are what the health checks run.
func overlayGPUDevices(layer string, n int) error {
	if err := os.MkdirAll(layer, 0o700); err != nil {
		return err
	}
	if err := unix.Mount("dev-layer", layer, "tmpfs", unix.MS_NOSUID, "mode=700,size=1m"); err != nil {
		return err
	}
	upper, work, old := filepath.Join(layer, "upper"), filepath.Join(layer, "work"), filepath.Join(layer, "old")
	for _, d := range []string{upper, work, old} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.Chmod(upper, 0o755); err != nil {
		return err
	}
	mknod := func(name string, minor int) error {
		p := filepath.Join(upper, name)
		if err := unix.Mknod(p, unix.S_IFCHR|0o666, int(unix.Mkdev(nvidiaMajor, uint32(minor)))); err != nil {
			return fmt.Errorf("mknod %s: %w", name, err)
		}
		return os.Chmod(p, 0o666)
	}
	for i := range n {
		if err := mknod(fmt.Sprintf("nvidia%d", i), i); err != nil {
			return err
		}
	}
	if err := mknod("nvidiactl", nvidiaCtlMinor); err != nil {
		return err
	}
	// The machine's /dev with its submounts, kept reachable to bind them back.
	if err := unix.Mount("/dev", old, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("binding the machine's /dev: %w", err)
	}
	opts := fmt.Sprintf("lowerdir=/dev,upperdir=%s,workdir=%s", upper, work)
	if err := unix.Mount("overlay", "/dev", "overlay", 0, opts); err != nil {
		return fmt.Errorf("overlay on /dev: %w", err)
	}
	for _, sub := range devSubmounts {
		src := filepath.Join(old, sub)
		if !isMountPoint(src) {
			continue
		}
		if err := unix.Mount(src, filepath.Join("/dev", sub), "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("binding /dev/%s back: %w", sub, err)
		}
	}
	return nil
}

// isMountPoint reports whether p is the root of a mount (its device differs from its parent's).
func isMountPoint(p string) bool {
	var st, parent unix.Stat_t
	if unix.Stat(p, &st) != nil || unix.Stat(filepath.Dir(p), &parent) != nil {
		return false
	}
	return st.Dev != parent.Dev
}
