package core

import (
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a Server.
type Options struct {
	// Seed starts the random sources (generated ids and names, fault decisions).
	Seed uint64
	// OpLatency is how long operations stay RUNNING when no latency fault names their method.
	OpLatency time.Duration
	// WaitTimeout bounds operations.wait calls (Compute answers "near 2 minutes").
	WaitTimeout time.Duration
	// Logger receives one debug line per request; nil discards.
	Logger *slog.Logger
	// Clock replaces time.Now (tests).
	Clock func() time.Time
	// User is the "user" recorded on Compute operations.
	User string
}

// Server is the shared state every emulated API is built on. Service packages receive it at registration and
// keep it: they register routes on Router, keep resources in Store, start operations with Ops, consult Faults
// and charge Quotas; calls are counted by the Router.
type Server struct {
	Store  *Store
	Ops    *Ops
	Faults *Faults
	Quotas *Quotas
	Calls  *Calls
	Router *Router
	Rand   *Rand
	Log    *slog.Logger
	// Tokens are the access tokens the VMs' metadata servers minted, checked on every API call that carries one.
	Tokens *Tokens

	OpLatency   time.Duration
	WaitTimeout time.Duration
	User        string

	clock      func() time.Time
	offset     atomic.Int64 // nanoseconds the clock was moved forward (clock.go)
	components sync.Map
	hooksMu    sync.Mutex
	resetHooks []func()
	closeHooks []func()
	// advanceHooks run after the clock moves (clock.go).
	advanceHooks []func()
}

// NewServer returns a Server with an empty store and no routes.
func NewServer(opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	wait := opts.WaitTimeout
	if wait <= 0 {
		wait = 2 * time.Minute
	}
	s := &Server{
		Store:       NewStore(),
		Faults:      NewFaults(opts.Seed),
		Calls:       NewCalls(),
		Rand:        NewRand(opts.Seed + 1),
		Log:         log,
		OpLatency:   opts.OpLatency,
		WaitTimeout: wait,
		User:        opts.User,
		clock:       clock,
	}
	s.Ops = newOps(s)
	s.Quotas = &Quotas{store: s.Store}
	s.Router = newRouter(s.Calls, s.Faults, log)
	s.Router.ops = s.Ops
	s.Router.projects = newProjectIDs(s.Store)
	// Tokens expire by the configured clock, not the moved one (clock.go): clients keep a token by their
	// own clock, so moving the emulator's forward must not expire every VM's token at once.
	s.Tokens = newTokens(s.clock)
	s.Router.tokens = s.Tokens
	return s
}

// Now is the emulator's clock: the configured clock plus however far it was moved (Advance).
func (s *Server) Now() time.Time { return s.clock().Add(time.Duration(s.offset.Load())) }

// Provide makes a package's service object findable by name (e.g. "instances"), so code that only holds the
// Server (the binary's runtime hook, other services) can reach it with Component.
func (s *Server) Provide(name string, v any) { s.components.Store(name, v) }

// Component returns what Provide registered under name, or nil.
func (s *Server) Component(name string) any {
	v, _ := s.components.Load(name)
	return v
}

// OnReset registers fn to run after a reset cleared the store, counters and faults (for state a package keeps
// outside the store).
func (s *Server) OnReset(fn func()) {
	s.hooksMu.Lock()
	s.resetHooks = append(s.resetHooks, fn)
	s.hooksMu.Unlock()
}

// OnClose registers fn to run when the emulator shuts down, before the final state save.
func (s *Server) OnClose(fn func()) {
	s.hooksMu.Lock()
	s.closeHooks = append(s.closeHooks, fn)
	s.hooksMu.Unlock()
}

// Reset returns the emulator to a fresh start: no resources, operations, counters, faults or quotas.
func (s *Server) Reset() {
	s.Ops.reset()
	s.Store.Replace(nil)
	s.Calls.Reset()
	s.Faults.Clear()
	s.offset.Store(0)
	s.Tokens.reset()
	s.hooksMu.Lock()
	hooks := append([]func(){}, s.resetHooks...)
	s.hooksMu.Unlock()
	for _, h := range hooks {
		h()
	}
}

// Close runs the close hooks and completes timed operations, so a following save holds their results.
func (s *Server) Close() {
	s.hooksMu.Lock()
	hooks := append([]func(){}, s.closeHooks...)
	s.hooksMu.Unlock()
	for _, h := range hooks {
		h()
	}
	s.Ops.Flush()
}
