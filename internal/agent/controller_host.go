package agent

// What the controller host needs before slurmctld can start: directories, the JWT key, the agent
// binary the power-saving programs run.

import (
	"crypto/rand"
	"fmt"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"os"
	"path"
)

// prepareHost creates what slurmctld and its programs need before any
// configuration is validated: directories with the owners Slurm checks,
// the JWT key (first boot only) and the power-saving programs, which the
// validator insists exist.
func (c *controller) prepareHost(cluster cc.Cluster, slurm account) error {
	l := cluster.Layout
	dirs := []struct {
		path  string
		mode  os.FileMode
		owner account
	}{
		{l.ConfDir, 0o755, rootAccount},
		{l.StateSaveLocation, 0o700, slurm},
		{path.Dir(l.SlurmctldLogFile), 0o755, slurm},
		{path.Dir(l.SlurmctldPidFile), 0o755, slurm},
		{l.ProgramDir, 0o755, rootAccount},
		{path.Dir(l.AgentBinary), 0o755, rootAccount},
	}
	for _, d := range dirs {
		if err := ensureDir(d.path, d.mode, d.owner); err != nil {
			return err
		}
	}
	if err := ensureJWTKey(l.JWTKeyFile, slurm); err != nil {
		return err
	}
	if err := installAgentBinary(c.exe, l.AgentBinary); err != nil {
		return err
	}
	for p, body := range cc.ProgramWrappers(cluster) {
		if _, err := writeFile(p, body, 0o755, rootAccount); err != nil {
			return err
		}
	}
	return nil
}

// ensureJWTKey generates the key slurmctld verifies slurmrestd's tokens
// with, once: it stays on the controller's boot disk, readable by
// SlurmUser only.
func ensureJWTKey(p string, slurm account) error {
	if fi, err := os.Stat(p); err == nil && fi.Size() >= 32 {
		return fixMeta(p, 0o600, slurm)
	}
	key := make([]byte, jwtKeySize)
	if _, err := rand.Read(key); err != nil {
		return fmt.Errorf("generating the JWT key: %w", err)
	}
	if _, err := writeFile(p, key, 0o600, slurm); err != nil {
		return fmt.Errorf("writing the JWT key: %w", err)
	}
	return nil
}

// installAgentBinary points Layout.AgentBinary (what the power-saving
// wrappers exec) at this agent build.
func installAgentBinary(exe, target string) error {
	if exe == "" || exe == target {
		return nil
	}
	if cur, err := os.Readlink(target); err == nil && cur == exe {
		return nil
	}
	tmp := target + ".new"
	os.Remove(tmp)
	if err := os.Symlink(exe, tmp); err != nil {
		return fmt.Errorf("installing the agent at %s: %w", target, err)
	}
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("installing the agent at %s: %w", target, err)
	}
	return nil
}
