package vmruntime

import "errors"

// ErrUnavailable wraps every reason the local runtime cannot run on this machine
// (not Linux, not root, a tool or kernel feature missing). Callers test for it
// with errors.Is to fall back to API-only emulation and tell the user why.
var ErrUnavailable = errors.New("local VM runtime unavailable")

// Addresses every host sees on its loopback; the runtime listens on them inside
// each host's network namespace.
const (
	MetadataIP = "169.254.169.254"
	EmulatorIP = "169.254.169.253"
	ServiceIP  = "169.254.169.252"
)

// LockDir holds one lock file per live runtime prefix, so CleanupStale can tell
// a crashed emulator's leftovers from a running emulator's hosts.
const LockDir = "/run/hypercompute-emulator/locks"

// Config configures one Runtime. One emulator process owns one Runtime.
type Config struct {
	// StateDir holds per-host directories (private /etc/slurm, /home, serial
	// logs, ...). Created if missing; its hosts/ subdirectory is wiped at New.
	StateDir string
	// Prefix names everything the runtime creates in the root namespace:
	// netns "<prefix>-h<n>", bridges "<prefix>-b<n>", veths "<prefix>-v<n>".
	// 1-8 characters [a-z0-9], unique per emulator process.
	Prefix string
	// EmulatorURL is where the emulator's APIs listen in the root namespace
	// (e.g. http://127.0.0.1:8080). Hosts reach it at http://169.254.169.253:80
	// and get HYPERCOMPUTE_EMULATOR_HOST=169.254.169.253:80. Optional.
	EmulatorURL string
	// ResolveStorage maps a mount request made inside a host
	// (`mount -t nfs 10.0.0.2:/share /home` → fstype "nfs", source
	// "10.0.0.2:/share"; lustre: "10.0.0.3@tcp:/lfs") to the backing directory on
	// the root filesystem. An error is shown to the guest's mount command.
	// Called from concurrent goroutines. Optional: without it every storage
	// mount fails with a clear message.
	ResolveStorage func(fstype, source string) (dir string, err error)
	// SbinFiles gives the executables a host gets in its /usr/sbin at each boot, by HostSpec.ID
	// (the GPU tool stand-ins of VMs whose machine type has GPUs); nil or empty: none.
	SbinFiles func(id string) map[string][]byte
	// GPUDevices gives how many GPU device files (/dev/nvidia0..N-1 and /dev/nvidiactl, NVIDIA's
	// character devices, major 195) a host sees at each boot, by HostSpec.ID: slurmd refuses a
	// node whose gres.conf File= is missing. Only that host sees them. nil or 0: none.
	GPUDevices func(id string) int
}

// ErrNoHost is returned for an ID the runtime does not hold.
var ErrNoHost = errors.New("no such host")

// ErrNotRunning is returned when a host is stopped or its init has died.
var ErrNotRunning = errors.New("host is not running")
