package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// mounter mounts the cluster's shared file systems.
type mounter struct {
	log *slog.Logger
	// markerDir records what this boot mounted. It lives on /run, which a
	// reboot empties; checking /proc/mounts instead would not work where a
	// mount point is itself a mount (the local cloud's private /home).
	markerDir string
	// timeout is how long one file system is retried before the failure is
	// reported; attemptTimeout bounds one mount(8) (an unreachable NFS
	// server makes mount.nfs retry for minutes on its own).
	timeout, attemptTimeout time.Duration
	// mount runs one mount; tests replace it.
	mount func(ctx context.Context, e cc.MountEntry) error
	// lookPath finds helper binaries (gcsfuse).
	lookPath func(string) (string, error)
}

func newMounter(log *slog.Logger, timeout time.Duration) *mounter {
	return &mounter{
		log:            log,
		markerDir:      "/run/hypercompute/mounts",
		timeout:        timeout,
		attemptTimeout: 90 * time.Second,
		mount:          mountEntry,
		lookPath:       exec.LookPath,
	}
}

func mountEntry(ctx context.Context, e cc.MountEntry) error {
	_, err := runCommand(ctx, nil, "mount", "-t", e.FSType, "-o", e.Options, e.Source, e.Target)
	return err
}

// mountAll mounts every shared file system in order (/home first). The
// error of a file system that never mounted names its source and target.
func (m *mounter) mountAll(ctx context.Context, mounts cc.Mounts) error {
	for _, e := range cc.MountEntries(mounts) {
		if err := m.mountOne(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

func (m *mounter) marker(e cc.MountEntry) string {
	sum := sha256.Sum256([]byte(e.FSType + "\x00" + e.Source + "\x00" + e.Target))
	return filepath.Join(m.markerDir, hex.EncodeToString(sum[:8]))
}

func (m *mounter) mountOne(ctx context.Context, e cc.MountEntry) error {
	marker := m.marker(e)
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	what := describeMount(e)
	if e.FSType == "gcsfuse" {
		if _, err := m.lookPath("gcsfuse"); err != nil {
			return fmt.Errorf("cannot mount %s: gcsfuse is not installed on this VM's image; install gcsfuse (Cloud Storage FUSE) in the image or remove the bucket from the cluster", what)
		}
	}
	if err := os.MkdirAll(e.Target, 0o755); err != nil {
		return fmt.Errorf("cannot mount %s: creating the mount point: %w", what, err)
	}
	deadline := time.Now().Add(m.timeout)
	wait := time.Second
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, m.attemptTimeout)
		err := m.mount(actx, e)
		cancel()
		if err == nil {
			if attempt > 1 {
				m.log.Info("mounted after retries", "source", e.Source, "target", e.Target, "attempts", attempt)
			} else {
				m.log.Info("mounted", "source", e.Source, "target", e.Target, "type", e.FSType)
			}
			if err := os.MkdirAll(m.markerDir, 0o755); err != nil {
				return err
			}
			return os.WriteFile(marker, []byte(e.Source+" "+e.Target+"\n"), 0o644)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("cannot mount %s: gave up after %d attempts in %s: %v", what, attempt, m.timeout, err)
		}
		m.log.Warn("mount failed; retrying", "source", e.Source, "target", e.Target, "attempt", attempt, "retry_in", wait.String(), "error", err.Error())
		if err := sleepCtx(ctx, wait); err != nil {
			return err
		}
		wait = min(wait*2, 15*time.Second)
	}
}

// describeMount names a file system the way its user configured it.
func describeMount(e cc.MountEntry) string {
	switch e.FSType {
	case "nfs":
		return fmt.Sprintf("NFS share %s on %s", e.Source, e.Target)
	case "lustre":
		return fmt.Sprintf("Lustre file system %s on %s", e.Source, e.Target)
	case "gcsfuse":
		return fmt.Sprintf("Cloud Storage bucket gs://%s on %s", e.Source, e.Target)
	}
	return fmt.Sprintf("%s %s on %s", e.FSType, e.Source, e.Target)
}
