package emulator

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/filestore"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/lustre"
	vmruntime "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/runtime"
)

// LocalRuntimeConfig configures the local VM runtime (package vmruntime): every emulated VM that reaches RUNNING
// boots as a host of this machine (own network namespace, hostname, metadata server at 169.254.169.254,
// startup-script run as root, NFS/Lustre mount helpers backed by the emulated Filestore and Lustre instances).
// Linux and root only. The zero value picks every default.
type LocalRuntimeConfig struct {
	// EmulatorURL is where the emulator's APIs listen on this machine ("http://127.0.0.1:8780"); hosts reach it
	// at 169.254.169.253:80 and get HYPERCOMPUTE_EMULATOR_HOST pointing there. Empty: hosts cannot call the APIs.
	EmulatorURL string
	// Prefix names the network namespaces, bridges, veths and cgroups of this emulator (1-8 of [a-z0-9]).
	// Default: "hc" and six random characters, so emulators never share names and CleanupStale("hc*") at the
	// next start finds what a crashed one left.
	Prefix string
	// StateDir holds the hosts' private directories (their /etc/slurm, /var/log, serial logs, ...).
	// Default: /run/hypercompute-emulator/<prefix>, removed when the emulator closes and, after a crash, by
	// the next emulator's start.
	StateDir string
}

// DefaultPrefixGlob matches the prefixes of emulators that did not choose their own; every attach removes the
// leftovers of the dead ones.
const DefaultPrefixGlob = "hc*"

// defaultStateRoot holds the state dirs of runtimes with defaulted StateDir, one per prefix.
const defaultStateRoot = "/run/hypercompute-emulator"

var defaultPrefixRE = regexp.MustCompile(`^hc[a-z0-9]{1,6}$`)

// localRuntime is what an attached runtime is made of, for Close and the accessors.
type localRuntime struct {
	rt         *vmruntime.Runtime
	cfg        LocalRuntimeConfig
	dataDir    string
	ownedState bool // StateDir was defaulted: the emulator removes it at close
}

// LocalRuntimeAvailable reports why the local runtime cannot run on this machine (not Linux, not root, tools
// missing), or nil. The error wraps vmruntime.ErrUnavailable.
func LocalRuntimeAvailable() error { return vmruntime.Available() }

// AttachLocalRuntime starts the local runtime and attaches it to the emulator's instances: VMs RUNNING now
// (loaded from a state file) boot at once, later ones as they reach RUNNING, and stop/start/reset/delete follow.
// It first removes what crashed emulators with default prefixes left (namespaces, links, cgroups, processes,
// state dirs), and gives Filestore and Lustre instances backing directories (Config.DataDir; default
// STATEFILE.storage with a state file, else StateDir/storage) that `mount -t nfs|lustre` inside hosts binds.
// The runtime is closed (every host killed and removed) when the emulator closes. Where the runtime cannot run
// the error wraps vmruntime.ErrUnavailable and nothing changed.
func (e *Emulator) AttachLocalRuntime(cfg LocalRuntimeConfig) (*vmruntime.Runtime, error) {
	if err := vmruntime.Available(); err != nil {
		return nil, err
	}
	e.rtMu.Lock()
	defer e.rtMu.Unlock()
	if e.local != nil {
		return nil, errors.New("a local runtime is already attached")
	}
	inst, ok := e.srv.Component("instances").(*instances.Service)
	if !ok {
		return nil, errors.New("the emulator serves no Compute instances to boot")
	}
	if err := vmruntime.CleanupStale(DefaultPrefixGlob); err != nil {
		// Another emulator's leftovers never stop this one; they are retried at the next start.
		e.srv.Log.Warn("removing leftovers of crashed emulators", "err", err)
	}
	removeStaleStateDirs(e)

	lr := &localRuntime{cfg: cfg}
	if lr.cfg.Prefix == "" {
		lr.cfg.Prefix = randomPrefix()
	}
	if lr.cfg.StateDir == "" {
		lr.cfg.StateDir = filepath.Join(defaultStateRoot, lr.cfg.Prefix)
		lr.ownedState = true
	}
	lr.dataDir = e.cfg.DataDir
	if lr.dataDir == "" {
		if e.cfg.StateFile != "" {
			abs, err := filepath.Abs(e.cfg.StateFile)
			if err != nil {
				return nil, err
			}
			lr.dataDir = abs + ".storage"
		} else {
			lr.dataDir = filepath.Join(lr.cfg.StateDir, "storage")
		}
	}
	rt, err := vmruntime.New(vmruntime.Config{
		StateDir:       lr.cfg.StateDir,
		Prefix:         lr.cfg.Prefix,
		EmulatorURL:    lr.cfg.EmulatorURL,
		ResolveStorage: e.resolveStorage,
		SbinFiles:      e.gpuTools,
		GPUDevices:     e.gpuDevices,
	})
	if err != nil {
		return nil, err
	}
	lr.rt = rt
	if err := e.setDataDir(lr.dataDir); err != nil {
		err = fmt.Errorf("storage data dir %s: %w", lr.dataDir, err)
		return nil, errors.Join(err, lr.close())
	}
	e.local = lr
	inst.SetRuntime(rt)
	// Close hooks run in registration order: the instances service's (registered by New) has finished its
	// queued boots before this one kills every host.
	e.srv.OnClose(func() {
		if err := lr.close(); err != nil {
			e.srv.Log.Error("stopping the local runtime", "err", err)
		}
	})
	e.srv.Log.Info("local runtime attached: RUNNING VMs boot as hosts of this machine",
		"prefix", lr.cfg.Prefix, "stateDir", lr.cfg.StateDir, "dataDir", lr.dataDir, "emulatorURL", lr.cfg.EmulatorURL)
	return rt, nil
}

func (lr *localRuntime) close() error {
	err := lr.rt.Close()
	if lr.ownedState {
		if rerr := os.RemoveAll(lr.cfg.StateDir); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}
	return err
}

// Runtime returns the attached local runtime (Exec, Command, Pids, ... on hosts keyed by instance key
// "projects/P/zones/Z/instances/N"), or nil in API-only mode.
func (e *Emulator) Runtime() *vmruntime.Runtime {
	e.rtMu.Lock()
	defer e.rtMu.Unlock()
	if e.local == nil {
		return nil
	}
	return e.local.rt
}

// LocalRuntimeConfig returns the attached runtime's effective configuration (defaults filled in) and its
// storage data directory; ok is false in API-only mode.
func (e *Emulator) LocalRuntimeConfig() (cfg LocalRuntimeConfig, dataDir string, ok bool) {
	e.rtMu.Lock()
	defer e.rtMu.Unlock()
	if e.local == nil {
		return LocalRuntimeConfig{}, "", false
	}
	return e.local.cfg, e.local.dataDir, true
}

// setDataDir gives Filestore shares and Lustre file systems their backing directories under dir.
func (e *Emulator) setDataDir(dir string) error {
	var errs []error
	if fs, ok := e.srv.Component(filestore.ComponentName).(*filestore.Service); ok {
		errs = append(errs, fs.SetDataDir(dir))
	}
	if l, ok := e.srv.Component(lustre.ComponentName).(*lustre.Service); ok {
		errs = append(errs, l.SetDataDir(dir))
	}
	return errors.Join(errs...)
}

// resolveStorage answers the mount helpers of hosts: an NFS source names a Filestore share by its IP, a Lustre
// source an instance's mount point. The error text reaches the guest's mount command.
func (e *Emulator) resolveStorage(fstype, source string) (string, error) {
	switch fstype {
	case "nfs", "nfs4":
		if fs, ok := e.srv.Component(filestore.ComponentName).(*filestore.Service); ok {
			if dir, ok := fs.ResolveMount(source); ok {
				return dir, nil
			}
		}
		return "", fmt.Errorf("no READY Filestore instance exports %s (want FILESTORE_IP:/SHARE)", source)
	case "lustre":
		if l, ok := e.srv.Component(lustre.ComponentName).(*lustre.Service); ok {
			if dir, ok := l.ResolveMount(source); ok {
				return dir, nil
			}
		}
		return "", fmt.Errorf("no ACTIVE Managed Lustre instance has the mount point %s (want IP@tcp:/FILESYSTEM)", source)
	}
	return "", fmt.Errorf("file system type %q is not emulated (nfs, nfs4 and lustre are)", fstype)
}

// removeStaleStateDirs removes the default state dirs of emulators that are gone: a live runtime holds the lock
// file of its prefix from before it creates its state dir until it has removed it, and CleanupStale removed
// the lock files of the dead ones.
func removeStaleStateDirs(e *Emulator) {
	entries, _ := os.ReadDir(defaultStateRoot)
	for _, ent := range entries {
		p := ent.Name()
		if !ent.IsDir() || !defaultPrefixRE.MatchString(p) {
			continue
		}
		if _, err := os.Stat(filepath.Join(vmruntime.LockDir, p+".lock")); err == nil {
			continue
		}
		if err := os.RemoveAll(filepath.Join(defaultStateRoot, p)); err != nil {
			e.srv.Log.Warn("removing a crashed emulator's state dir", "dir", filepath.Join(defaultStateRoot, p), "err", err)
		}
	}
}

func randomPrefix() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 6)
	rand.Read(b)
	var s strings.Builder
	s.WriteString("hc")
	for _, c := range b {
		s.WriteByte(alphabet[int(c)%len(alphabet)])
	}
	return s.String()
}
