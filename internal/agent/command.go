package agent

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// commandTimeout bounds a single Slurm or munge command, so a hung daemon
// shows up as an error instead of a stuck agent.
const commandTimeout = 60 * time.Second

// runCommand runs name with args and returns its combined output. A failure
// carries the command line and the command's own words, which is the text
// a user needs in the `error` guest attribute.
func runCommand(ctx context.Context, env []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	text := strings.TrimSpace(out.String())
	if err != nil {
		line := strings.Join(append([]string{name}, args...), " ")
		if text == "" {
			return text, fmt.Errorf("%s: %v", line, err)
		}
		return text, fmt.Errorf("%s: %v: %s", line, err, lastLines(text, 8))
	}
	return text, nil
}

// lastLines keeps the end of a long output, where the reason usually is.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// sleepCtx sleeps unless ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
