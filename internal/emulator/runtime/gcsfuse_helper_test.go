//go:build linux

package vmruntime

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runGcsfuseHelper runs mount.gcsfuse with a stand-in gcsfuse first on PATH that records its arguments and
// exits with exit; it returns the helper's exit code, its stderr and the recorded arguments.
func runGcsfuseHelper(t *testing.T, exit string, args ...string) (int, string, []string) {
	t.Helper()
	dir := t.TempDir()
	helper := filepath.Join(dir, "mount.gcsfuse")
	if err := os.WriteFile(helper, gcsfuseMountHelper, 0o755); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(dir, "args")
	fake := "#!/bin/bash\nprintf '%s\\n' \"$@\" > " + record + "\necho 'mount: invalid argument' >&2\nexit " + exit + "\n"
	if err := os.WriteFile(filepath.Join(dir, "gcsfuse"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/bash", append([]string{helper}, args...)...)
	cmd.Env = []string{"PATH=" + dir + ":/usr/bin:/bin", "HYPERCOMPUTE_EMULATOR_HOST=169.254.169.253:80"}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(record)
	return code, stderr.String(), strings.Fields(string(raw))
}

// mount(8)'s options become gcsfuse's flags by gcsfuse's own helper's rules, plus the local cloud's endpoint.
func TestGcsfuseHelperTurnsOptionsIntoFlags(t *testing.T) {
	target := t.TempDir()
	code, stderr, got := runGcsfuseHelper(t, "0", "ckpt-bucket", target, "-n", "-o",
		"rw,_netdev,allow_other,implicit_dirs,profile=aiml-checkpointing,file_mode=644,file_cache:max_size_mb=-1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := []string{
		"--custom-endpoint=http://169.254.169.253:80/storage/v1/",
		"-o", "allow_other", "--implicit-dirs", "--profile=aiml-checkpointing", "--file-mode=644", "-o", "file_cache:max_size_mb=-1",
		"--log-file=/var/log/gcsfuse-ckpt-bucket.log", "ckpt-bucket", target,
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("gcsfuse ran with\n  %q\nwant\n  %q", got, want)
	}
}

// A gcsfuse that fails makes mount fail with status 32 and gcsfuse's own words.
func TestGcsfuseHelperReportsGcsfuseErrors(t *testing.T) {
	code, stderr, _ := runGcsfuseHelper(t, "1", "ckpt-bucket", t.TempDir(), "-o", "log_file=/dev/null")
	if code != 32 || !strings.Contains(stderr, "mount.gcsfuse: mounting gs://ckpt-bucket on") || !strings.Contains(stderr, "mount: invalid argument") {
		t.Errorf("exit %d, stderr %q; want 32 and gcsfuse's error", code, stderr)
	}
	code, stderr, _ = runGcsfuseHelper(t, "0", "ckpt-bucket", "/nonexistent/mountpoint")
	if code != 32 || !strings.Contains(stderr, "mount point /nonexistent/mountpoint does not exist") {
		t.Errorf("missing mount point: exit %d, stderr %q", code, stderr)
	}
}
