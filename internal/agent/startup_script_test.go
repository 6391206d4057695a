package agent

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A startup script runs once per boot with its output on the console, line by line; a failing one reports its
// exit code and last output, and is not run again in the same boot; a changed script runs.
func TestStartupScriptOncePerBootAndFailure(t *testing.T) {
	dir := t.TempDir()
	startupScriptDir, scriptFile = filepath.Join(dir, "run"), filepath.Join(dir, "lib", "script")
	t.Cleanup(func() { startupScriptDir, scriptFile = userScriptMarkers, userScriptPath })
	h := &host{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	count := filepath.Join(dir, "count")
	good := "#!/bin/sh\necho installing >&2\necho x >> " + count + "\necho done"
	var console bytes.Buffer
	for i := 0; i < 2; i++ {
		if err := h.runStartupScript(context.Background(), good, &console); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(count); string(b) != "x\n" {
		t.Errorf("the script ran %q times, want once per boot", b)
	}
	if c := console.String(); c != "startup-script: installing\nstartup-script: done\n" {
		t.Errorf("console = %q", c)
	}
	bad := "#!/bin/bash\nfor i in $(seq 1 30); do echo line $i; done\necho 'apt-get: package nvidia-foo not found' >&2\nexit 3\n"
	err := h.runStartupScript(context.Background(), bad, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "the startup script failed (exit code 3)") || !strings.Contains(err.Error(), "package nvidia-foo not found") ||
		strings.Contains(err.Error(), "line 5\n") {
		t.Fatalf("failure = %v, want the exit code and the last lines only", err)
	}
	again := h.runStartupScript(context.Background(), bad, io.Discard)
	if again == nil || again.Error() != err.Error() {
		t.Errorf("the failed script's second pass: %v, want the same error without running it again", again)
	}
}
