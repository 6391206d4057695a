//go:build linux

package vmruntime

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
)

var sbinNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// sbinFiles are the extra executables of a host's /usr/sbin for this boot.
func (r *Runtime) sbinFiles(spec HostSpec) map[string][]byte {
	if r.cfg.SbinFiles == nil {
		return nil
	}
	return r.cfg.SbinFiles(spec.ID)
}

// writeSbinFiles writes them into the overlay's upper layer before it is mounted.
func writeSbinFiles(upper string, files map[string][]byte) error {
	for name, body := range files {
		if !sbinNameRE.MatchString(name) {
			return fmt.Errorf("sbin file name %q is invalid", name)
		}
		if err := os.WriteFile(filepath.Join(upper, name), body, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// InstallSbinFiles replaces executables in a running host's /usr/sbin, as a package upgrade would;
// the next boot takes them from Config.SbinFiles again.
func (r *Runtime) InstallSbinFiles(ctx context.Context, id string, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for n := range files {
		if !sbinNameRE.MatchString(n) {
			return fmt.Errorf("sbin file name %q is invalid", n)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		// Written beside and renamed, so a tool running now never reads half a file.
		script := fmt.Sprintf("echo %s | base64 -d > /usr/sbin/.%s.new && chmod 755 /usr/sbin/.%s.new && mv /usr/sbin/.%s.new /usr/sbin/%s",
			base64.StdEncoding.EncodeToString(files[n]), n, n, n, n)
		if _, stderr, err := r.Exec(ctx, id, "sh", "-c", script); err != nil {
			return fmt.Errorf("installing %s in %s: %v: %s", n, id, err, stderr)
		}
	}
	return nil
}
