//go:build linux

package vmruntime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// lockPrefix takes the lock that marks a prefix as owned by a live process.
// The kernel drops it when the process dies, however it dies.
func lockPrefix(prefix string) (f *os.File, ok bool, err error) {
	if err := os.MkdirAll(LockDir, 0o755); err != nil {
		return nil, false, err
	}
	f, err = os.OpenFile(filepath.Join(LockDir, prefix+".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, err
	}
	// A cleaner unlinks the file of a prefix it cleaned; holding a lock on
	// such an unlinked file proves nothing, as a new owner may have created
	// and locked a fresh one meanwhile.
	var held, now unix.Stat_t
	if unix.Fstat(int(f.Fd()), &held) != nil || unix.Stat(f.Name(), &now) != nil || held.Ino != now.Ino {
		f.Close()
		return nil, false, nil
	}
	return f, true, nil
}

// leftoverRE matches the names the runtime gives netns ("h"), bridges ("b")
// and veths ("v"); group 1 is the prefix.
var leftoverRE = regexp.MustCompile(`^([a-z0-9]{1,8})-[hbv][0-9a-z]+$`)

// CleanupStale removes what crashed emulators left: for every prefix matching
// prefixGlob (filepath.Match syntax, e.g. "hc*") whose owner is gone, it kills
// the processes still in its network namespaces, deletes its veths, bridges
// and netns (their /run/netns mounts go with them). Prefixes held by a live
// Runtime are skipped. Per-host files live under the dead emulator's StateDir,
// which its caller owns.
func CleanupStale(prefixGlob string) error {
	if _, err := filepath.Match(prefixGlob, ""); err != nil {
		return fmt.Errorf("prefix glob %q: %w", prefixGlob, err)
	}
	prefixes := map[string]bool{}
	for _, name := range leftovers() {
		if p := leftoverRE.FindStringSubmatch(name); p != nil {
			if ok, _ := filepath.Match(prefixGlob, p[1]); ok {
				prefixes[p[1]] = true
			}
		}
	}
	locks, _ := filepath.Glob(filepath.Join(LockDir, "*.lock"))
	for _, l := range locks {
		p := filepath.Base(l)
		p = p[:len(p)-len(".lock")]
		if ok, _ := filepath.Match(prefixGlob, p); ok && prefixRE.MatchString(p) {
			prefixes[p] = true
		}
	}
	var errs []error
	for p := range prefixes {
		lock, ok, err := lockPrefix(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !ok {
			continue // a live emulator owns it
		}
		if err := cleanupPrefix(p); err != nil {
			errs = append(errs, fmt.Errorf("prefix %s: %w", p, err))
		}
		os.Remove(lock.Name())
		lock.Close()
	}
	return errors.Join(errs...)
}

// leftovers lists netns and interface names in the root namespace.
func leftovers() []string {
	var names []string
	for _, dir := range []string{"/run/netns", "/sys/class/net"} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			names = append(names, e.Name())
		}
	}
	return names
}

// cleanupPrefix removes everything named with prefix. Caller owns the prefix.
func cleanupPrefix(prefix string) error {
	var nss, bridges, veths []string
	for _, name := range leftovers() {
		m := leftoverRE.FindStringSubmatch(name)
		if m == nil || m[1] != prefix {
			continue
		}
		switch name[len(prefix)+1] {
		case 'h':
			nss = append(nss, name)
		case 'b':
			bridges = append(bridges, name)
		case 'v':
			veths = append(veths, name)
		}
	}
	sort.Strings(nss)
	var errs []error
	for _, ns := range nss {
		if err := killNetnsProcesses(ns); err != nil {
			errs = append(errs, err)
		}
	}
	for _, cg := range staleCgroups(prefix) {
		if err := removeCgroupTree(cg); err != nil {
			errs = append(errs, err)
		}
	}
	for _, l := range append(veths, bridges...) {
		if err := deleteLink(l); err != nil {
			errs = append(errs, err)
		}
	}
	for _, ns := range nss {
		if err := deleteNetns(ns); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// killNetnsProcesses SIGKILLs every process in a netns (a host's init first,
// which takes its PID namespace with it) and waits until none is left.
func killNetnsProcesses(ns string) error {
	var st unix.Stat_t
	if err := unix.Stat(netnsPath(ns), &st); err != nil {
		return nil
	}
	ident := fmt.Sprintf("net:[%d]", st.Ino)
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := pidsWithNS("net", ident)
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %v in netns %s survive SIGKILL", pids, ns)
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
