package agent

import (
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// LogFile is the agent's own log on the VM (it also logs to stderr, which
// is the serial console or the journal).
const LogFile = "/var/log/hypercompute/agent.log"

// NewLogger returns the agent's logger writing to stderr and LogFile. The
// log never carries key material: secrets are only ever passed between
// files, never formatted.
func NewLogger(stderr io.Writer) (*slog.Logger, io.Closer) {
	// stderr may be a pipe whose reader goes away (the startup script's
	// console); a write must then fail instead of killing the agent.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	var w io.Writer = bestEffort{stderr}
	var closer io.Closer = io.NopCloser(nil)
	if err := os.MkdirAll(filepath.Dir(LogFile), 0o755); err == nil {
		if f, err := os.OpenFile(LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o640); err == nil {
			w = io.MultiWriter(bestEffort{f}, w)
			closer = f
		}
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})), closer
}

// bestEffort drops write errors so one broken output never silences the
// others.
type bestEffort struct{ w io.Writer }

func (b bestEffort) Write(p []byte) (int, error) {
	b.w.Write(p)
	return len(p), nil
}
