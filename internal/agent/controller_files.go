package agent

// Writing the rendered configuration to the controller and publishing the shared part to nodes.

import (
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// writeConfig writes the rendered files and removes those the previous
// configuration had and this one does not (a dropped prolog).
func (c *controller) writeConfig(files map[string][]byte, previous []string) error {
	for _, p := range sortedPaths(files) {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if _, err := writeFile(p, files[p], mode, rootAccount); err != nil {
			return err
		}
	}
	for _, p := range previous {
		if _, keep := files[p]; !keep {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	return nil
}

// sharedName is where a rendered file is published under
// /home/.hypercompute/slurm: configuration files by name, scripts under
// prolog.d/ and epilog.d/ (compute agents install them from there).
func sharedName(l cc.Layout, p string) string {
	switch path.Dir(p) {
	case l.PrologDir:
		return path.Join("prolog.d", path.Base(p))
	case l.EpilogDir:
		return path.Join("epilog.d", path.Base(p))
	}
	return path.Base(p)
}

// publish copies the applied files to the cluster's shared directory for
// login and compute VMs.
func (c *controller) publish(cluster cc.Cluster, files map[string][]byte, previous []string) error {
	dir := path.Join(cluster.Mounts.SharedDir(), cc.SharedSlurmDir)
	if err := ensureDir(cluster.Mounts.SharedDir(), 0o755, rootAccount); err != nil {
		return err
	}
	if err := ensureDir(dir, 0o755, rootAccount); err != nil {
		return err
	}
	l := cluster.Layout
	want := map[string]bool{}
	for _, p := range sortedPaths(files) {
		name := sharedName(l, p)
		want[name] = true
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if _, err := writeFile(path.Join(dir, name), files[p], mode, rootAccount); err != nil {
			return fmt.Errorf("publishing the Slurm configuration for login and compute VMs: %w", err)
		}
	}
	for _, p := range previous {
		if name := sharedName(l, p); !want[name] {
			os.Remove(path.Join(dir, name))
		}
	}
	return nil
}

func sortedPaths(files map[string][]byte) []string {
	out := make([]string, 0, len(files))
	for p := range files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
