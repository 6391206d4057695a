package emulator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/storage"
)

// Config configures an Emulator. The zero value is a usable in-memory emulator.
type Config struct {
	// StateFile, when set, is loaded at start and saved atomically shortly after every change and at Close.
	StateFile string
	// SaveDelay debounces state saves (default 200ms).
	SaveDelay time.Duration
	// Seed makes generated ids, names and fault decisions repeatable.
	Seed uint64
	// OpLatency is how long operations stay RUNNING when no latency fault applies. Zero completes them before
	// the call that started them answers (the answer still says RUNNING, as Google's does).
	OpLatency time.Duration
	// WaitTimeout bounds operations.wait (default 2 minutes, like Compute).
	WaitTimeout time.Duration
	// Logger gets one debug line per request; nil discards.
	Logger *slog.Logger
	// Clock replaces time.Now.
	Clock func() time.Time
	// DataDir holds the directories backing Filestore shares and Lustre file systems (DATADIR/filestore/...,
	// DATADIR/lustre/...), which hosts of the local runtime mount. Empty: none, unless a local runtime is
	// attached (see AttachLocalRuntime for its default).
	DataDir string
	// LocalRuntime, when set, makes New attach the local VM runtime (see AttachLocalRuntime); New fails where it
	// cannot run, with an error wrapping vmruntime.ErrUnavailable.
	LocalRuntime *LocalRuntimeConfig
}

// Emulator is the local cloud: every emulated API behind one http.Handler.
type Emulator struct {
	cfg       Config
	srv       *core.Server
	persister *core.Persister
	closeOnce sync.Once
	closeErr  error

	rtMu  sync.Mutex
	local *localRuntime // nil in API-only mode
}

// ProjectNumber is the deterministic project number of a project id (Compute's project "id", the number in
// Service Networking's "projects/NUMBER/global/networks/N").
func ProjectNumber(projectID string) string { return core.ProjectNumber(projectID) }

// New builds an emulator with every registered API, loading cfg.StateFile when it exists.
func New(cfg Config) (*Emulator, error) {
	srv := core.NewServer(core.Options{
		Seed:        cfg.Seed,
		OpLatency:   cfg.OpLatency,
		WaitTimeout: cfg.WaitTimeout,
		Logger:      cfg.Logger,
		Clock:       cfg.Clock,
	})
	e := &Emulator{cfg: cfg, srv: srv}
	for _, register := range services {
		register(srv)
	}
	registerAdmin(e)
	registerExec(e)
	if cfg.StateFile != "" {
		if err := srv.LoadSnapshot(cfg.StateFile); err != nil {
			return nil, err
		}
		delay := cfg.SaveDelay
		if delay <= 0 {
			delay = 200 * time.Millisecond
		}
		e.persister = srv.StartPersister(cfg.StateFile, delay)
	}
	if cfg.DataDir != "" {
		if err := e.setDataDir(cfg.DataDir); err != nil {
			_ = e.Close()
			return nil, fmt.Errorf("storage data dir %s: %w", cfg.DataDir, err)
		}
	}
	if cfg.LocalRuntime != nil {
		if _, err := e.AttachLocalRuntime(*cfg.LocalRuntime); err != nil {
			_ = e.Close()
			return nil, err
		}
	}
	return e, nil
}

// Handler serves every API by path prefix: /compute/v1, /filestore/v1, /lustre/v1, /servicenetworking/v1,
// /storage/v1 (with /upload and /download), /computeMetadata/v1 and the admin API under /emulator/v1, plus Cloud
// Storage's XML object reads at /BUCKET/OBJECT, which no path pattern can share the router with.
func (e *Emulator) Handler() http.Handler {
	if st, ok := e.srv.Component(storage.ComponentName).(*storage.Service); ok {
		return st.XMLReads(e.srv.Router)
	}
	return e.srv.Router
}

// Server exposes the core for API packages and tests (store, operations, faults, quotas, counters).
func (e *Emulator) Server() *core.Server { return e.srv }

// Serve listens on addr and serves until ctx ends, then shuts down gracefully and closes the emulator.
func (e *Emulator) Serve(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return e.ServeListener(ctx, ln)
}

// ServeListener serves on ln until ctx ends, then shuts down gracefully (in-flight calls get 5 seconds, operation
// waits are cut short) and closes the emulator, saving state.
func (e *Emulator) ServeListener(ctx context.Context, ln net.Listener) error {
	baseCtx, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	hs := &http.Server{
		Handler:           e.Handler(),
		ReadHeaderTimeout: 30 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return baseCtx },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		_ = e.Close()
		return err
	case <-ctx.Done():
	}
	cancelBase() // releases long operations.wait and wait_for_change calls
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(shutCtx)
	if cerr := e.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Close completes pending timed operations, runs close hooks and saves the state file. It is idempotent.
func (e *Emulator) Close() error {
	e.closeOnce.Do(func() {
		e.srv.Close()
		if e.persister != nil {
			if err := e.persister.Stop(); err != nil {
				e.closeErr = fmt.Errorf("saving state to %s: %w", e.cfg.StateFile, err)
			}
		}
	})
	return e.closeErr
}

// SaveState writes the state file now (no-op without one).
func (e *Emulator) SaveState() error {
	if e.persister == nil {
		return nil
	}
	return e.persister.Save()
}

// Reset returns the emulator to a fresh start: no resources, operations, counters, faults or quota limits.
func (e *Emulator) Reset() { e.srv.Reset() }
