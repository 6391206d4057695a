package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The user's startup script of a node set or of the login VMs (cc.Node.StartupScript). It runs once per boot,
// after the node's own bootstrap (mounts, munge, the cluster's scripts) and before the node joins Slurm, so a
// node whose script fails takes no job. Its output goes to the serial console line by line (the agent's stderr)
// and the agent's log; a failure is reported as the node's bootstrap error with the exit status and the last
// lines of output, which the provider's apply prints. A failed script is not run again in the same boot: the
// node stays failed until it is replaced or rebooted (a changed script is a new script and runs).

const (
	userScriptPath    = "/var/lib/hypercompute/user-startup-script"
	userScriptMarkers = "/run/hypercompute"
	userScriptTimeout = 30 * time.Minute
	userScriptTail    = 20 // lines of output kept for the error
)

// startupScriptDir is where the markers go; a variable so tests can move it.
var startupScriptDir = userScriptMarkers

// scriptFile is where the script is written; a variable so tests can move it.
var scriptFile = userScriptPath

func (h *host) runStartupScript(ctx context.Context, script string, console io.Writer) error {
	if script == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(script))
	id := hex.EncodeToString(sum[:8])
	done := filepath.Join(startupScriptDir, "user-startup-"+id+".ok")
	failed := filepath.Join(startupScriptDir, "user-startup-"+id+".failed")
	if _, err := os.Stat(done); err == nil {
		return nil
	}
	if b, err := os.ReadFile(failed); err == nil {
		return errors.New(string(b))
	}
	if err := os.MkdirAll(startupScriptDir, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(scriptFile), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(scriptFile, []byte(script), 0o700); err != nil {
		return err
	}
	h.log.Info("running the startup script", "sha256", id)
	ctx, cancel := context.WithTimeout(ctx, userScriptTimeout)
	defer cancel()
	tail := &tailLines{max: userScriptTail}
	out := &prefixWriter{prefix: "startup-script: ", w: io.MultiWriter(console, tail)}
	cmd := exec.CommandContext(ctx, scriptFile)
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	err := cmd.Run()
	out.flush()
	if err == nil {
		h.log.Info("the startup script succeeded", "took", time.Since(start).Round(time.Second).String())
		return os.WriteFile(done, nil, 0o644)
	}
	status := err.Error()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() >= 0 {
		status = fmt.Sprintf("exit code %d", exit.ExitCode())
	}
	if ctx.Err() == context.DeadlineExceeded {
		status = fmt.Sprintf("still running after %s, killed", userScriptTimeout)
	}
	msg := fmt.Sprintf("the startup script failed (%s); its last output:\n%s", status, strings.TrimRight(tail.String(), "\n"))
	_ = os.WriteFile(failed, []byte(msg), 0o644)
	return errors.New(msg)
}

// prefixWriter writes whole lines, each with prefix.
type prefixWriter struct {
	mu     sync.Mutex
	prefix string
	w      io.Writer
	buf    bytes.Buffer
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf.Write(b)
	for {
		i := bytes.IndexByte(p.buf.Bytes(), '\n')
		if i < 0 {
			break
		}
		line := p.buf.Next(i + 1)
		_, _ = io.WriteString(p.w, p.prefix+string(line))
	}
	return len(b), nil
}

func (p *prefixWriter) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.buf.Len() > 0 {
		_, _ = io.WriteString(p.w, p.prefix+p.buf.String()+"\n")
		p.buf.Reset()
	}
}

// tailLines keeps the last max lines written to it.
type tailLines struct {
	max   int
	lines []string
}

func (t *tailLines) Write(b []byte) (int, error) {
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if l == "" {
			continue
		}
		t.lines = append(t.lines, strings.TrimPrefix(l, "startup-script: "))
		if len(t.lines) > t.max {
			t.lines = t.lines[1:]
		}
	}
	return len(b), nil
}

func (t *tailLines) String() string { return strings.Join(t.lines, "") }
