//go:build linux

package vmruntime

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// A host gets a cgroup of its own in every hierarchy the machine mounts under
// /sys/fs/cgroup, created below the runtime's own cgroup. Its init moves in,
// enters a new cgroup namespace and sees its cgroup as /sys/fs/cgroup/<ctrl>,
// so slurmd's proctrack/cgroup and task/cgroup build slurm_<node>/... inside
// the host: two clusters with the same node names never share a job cgroup,
// and Delete removes whatever Slurm left there.

// cgroupHierarchy is one cgroup mount and where the runtime sits in it.
type cgroupHierarchy struct {
	mountpoint string
	options    []string // super options: controllers, name=...
	own        string   // the runtime's cgroup, as a path under mountpoint
}

// hostCgroup is a host's cgroup in one hierarchy: Dir on the machine, bound
// over Mountpoint inside the host.
type hostCgroup struct {
	Dir        string `json:"dir"`
	Mountpoint string `json:"mountpoint"`
	cpuset     bool
}

// cgroupHierarchies reads the cgroup mounts under /sys/fs/cgroup and this
// process's place in each.
func cgroupHierarchies() ([]cgroupHierarchy, error) {
	own := map[string]string{} // controller list ("" for v2) → path
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) == 3 {
			own[parts[1]] = parts[2]
		}
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var hs []cgroupHierarchy
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint opts [optional...] - fstype source superopts
		left, right, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		lf, rf := strings.Fields(left), strings.Fields(right)
		if len(lf) < 5 || len(rf) < 3 || (rf[0] != "cgroup" && rf[0] != "cgroup2") {
			continue
		}
		root, mp := unescapeMount(lf[3]), unescapeMount(lf[4])
		if !strings.HasPrefix(mp, "/sys/fs/cgroup") {
			continue
		}
		opts := strings.Split(rf[2], ",")
		key := ""
		if rf[0] == "cgroup" {
			key = ""
			for ctrls := range own {
				if ctrls != "" && containsAll(opts, strings.Split(ctrls, ",")) {
					key = ctrls
				}
			}
			if key == "" {
				continue
			}
		}
		if seen[key] {
			continue // the same hierarchy mounted twice
		}
		path, ok := own[key]
		if !ok {
			continue
		}
		rel := path
		if root != "/" {
			rel = strings.TrimPrefix(path, root)
		}
		seen[key] = true
		hs = append(hs, cgroupHierarchy{mountpoint: mp, options: opts, own: filepath.Join(mp, rel)})
	}
	return hs, sc.Err()
}

func containsAll(set, want []string) bool {
	for _, w := range want {
		found := false
		for _, s := range set {
			if s == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// createHostCgroups makes the host's cgroup in every hierarchy. Cgroups are
// an isolation nicety, not a requirement: where the machine does not let us
// create them (read-only cgroupfs in a container), the host runs without, and
// the returned error says why.
func createHostCgroups(name string) ([]hostCgroup, error) {
	hs, err := cgroupHierarchies()
	if err != nil {
		return nil, err
	}
	var cgs []hostCgroup
	for _, h := range hs {
		cg := hostCgroup{Dir: filepath.Join(h.own, name), Mountpoint: h.mountpoint, cpuset: containsAll(h.options, []string{"cpuset"})}
		if err := os.Mkdir(cg.Dir, 0o755); err != nil && !os.IsExist(err) {
			removeHostCgroups(cgs)
			return nil, fmt.Errorf("creating cgroup %s: %w", cg.Dir, err)
		}
		if cg.cpuset {
			// A v1 cpuset cgroup admits no task until it has CPUs and memory nodes.
			for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
				v, err := os.ReadFile(filepath.Join(h.own, f))
				if err == nil {
					err = os.WriteFile(filepath.Join(cg.Dir, f), v, 0o644)
				}
				if err != nil {
					removeHostCgroups(append(cgs, cg))
					return nil, fmt.Errorf("initializing %s: %w", cg.Dir, err)
				}
			}
		}
		cgs = append(cgs, cg)
	}
	return cgs, nil
}

func removeHostCgroups(cgs []hostCgroup) error {
	var errs []error
	for _, cg := range cgs {
		if err := removeCgroupTree(cg.Dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// removeCgroupTree kills what is left in a cgroup tree and removes it deepest
// first (cgroup directories go with rmdir only once empty).
func removeCgroupTree(dir string) error {
	var dirs []string
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	deadline := time.Now().Add(5 * time.Second)
	for _, d := range dirs {
		for {
			err := syscall.Rmdir(d)
			if err == nil || errors.Is(err, syscall.ENOENT) {
				break
			}
			if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
				return fmt.Errorf("removing cgroup %s: %w", d, err)
			}
			for _, pid := range cgroupPids(d) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return nil
}

func cgroupPids(dir string) []int {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		var pid int
		if _, err := fmt.Sscanf(f, "%d", &pid); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids
}

// staleCgroups finds host cgroups named with prefix in every hierarchy, a few
// levels deep (they sit below whatever cgroup their emulator ran in).
func staleCgroups(prefix string) []string {
	hs, _ := cgroupHierarchies()
	var found []string
	for _, h := range hs {
		base := strings.Count(h.mountpoint, "/")
		filepath.WalkDir(h.mountpoint, func(p string, e os.DirEntry, err error) error {
			if err != nil || !e.IsDir() {
				return nil
			}
			if m := leftoverRE.FindStringSubmatch(e.Name()); m != nil && m[1] == prefix {
				found = append(found, p)
				return filepath.SkipDir
			}
			if strings.Count(p, "/")-base >= 4 {
				return filepath.SkipDir
			}
			return nil
		})
	}
	return found
}
