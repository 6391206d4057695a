// Package emulatortest starts the emulator inside a Go test, on 127.0.0.1 at a random port, and gives the test
// the emulator's admin functions directly.
package emulatortest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"google.golang.org/api/option"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	vmruntime "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/runtime"
)

// Env is a running emulator.
type Env struct {
	// URL is the base URL, "http://127.0.0.1:PORT" (no trailing slash).
	URL string
	// Host is "127.0.0.1:PORT", the form HYPERCOMPUTE_EMULATOR_HOST takes.
	Host string
	// Emulator is the emulator itself; Server its core (store, operations, faults, quotas, counters).
	Emulator *emulator.Emulator
	Server   *core.Server
	// Runtime is the local VM runtime (WithLocalRuntime), nil without one. Host IDs are instance keys.
	Runtime *vmruntime.Runtime

	t         testing.TB
	hs        *httptest.Server
	cancel    context.CancelFunc
	closeOnce sync.Once
}

// Option adjusts the emulator's configuration.
type Option func(*emulator.Config)

// WithStateFile makes the emulator load and save state at path.
func WithStateFile(path string) Option { return func(c *emulator.Config) { c.StateFile = path } }

// WithOpLatency sets how long operations stay RUNNING by default (Start's default is zero: operations are DONE
// before the starting call answers, so a client's first poll sees them done).
func WithOpLatency(d time.Duration) Option { return func(c *emulator.Config) { c.OpLatency = d } }

// WithSeed sets the random seed.
func WithSeed(seed uint64) Option { return func(c *emulator.Config) { c.Seed = seed } }

// WithLocalRuntime attaches the local VM runtime: RUNNING VMs boot as hosts of this machine, reaching the
// emulator at 169.254.169.253. Start skips the test (with the reason) where the runtime cannot run: not Linux,
// not root, tools missing.
func WithLocalRuntime() Option {
	return func(c *emulator.Config) {
		if c.LocalRuntime == nil {
			c.LocalRuntime = &emulator.LocalRuntimeConfig{}
		}
	}
}

// WithConfig edits the whole configuration.
func WithConfig(fn func(*emulator.Config)) Option { return Option(fn) }

// Start runs an emulator for the test; it stops (saving any state file) when the test ends.
func Start(t testing.TB, opts ...Option) *Env {
	t.Helper()
	cfg := emulator.Config{Seed: 1, SaveDelay: 20 * time.Millisecond}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.LocalRuntime != nil {
		if err := emulator.LocalRuntimeAvailable(); err != nil {
			t.Skipf("skipping: %v", err)
		}
	}
	// The listener exists before the emulator, so a local runtime knows the URL its hosts reach.
	var handler http.Handler
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	baseURL := "http://" + hs.Listener.Addr().String()
	if cfg.LocalRuntime != nil && cfg.LocalRuntime.EmulatorURL == "" {
		rc := *cfg.LocalRuntime
		rc.EmulatorURL = baseURL
		cfg.LocalRuntime = &rc
	}
	emu, err := emulator.New(cfg)
	if err != nil {
		hs.Listener.Close()
		t.Fatalf("emulatortest: %v", err)
	}
	handler = emu.Handler()
	ctx, cancel := context.WithCancel(context.Background())
	// Long polls (operations.wait) end when the test does instead of holding Close for minutes.
	hs.Config.BaseContext = func(net.Listener) context.Context { return ctx }
	hs.Start()
	u, _ := url.Parse(hs.URL)
	env := &Env{URL: hs.URL, Host: u.Host, Emulator: emu, Server: emu.Server(), Runtime: emu.Runtime(), t: t, hs: hs, cancel: cancel}
	t.Cleanup(env.Close)
	return env
}

// Close stops the server and the emulator (saving state); Start registers it as a cleanup, calling it earlier
// is allowed (e.g. to restart on the same state file).
func (e *Env) Close() {
	e.closeOnce.Do(func() {
		e.cancel()
		e.hs.Close()
		if err := e.Emulator.Close(); err != nil {
			e.t.Errorf("emulatortest: closing emulator: %v", err)
		}
	})
}

// ClientOptions are the options that point a Google Cloud Go client at this emulator, unauthenticated.
func (e *Env) ClientOptions() []option.ClientOption {
	return []option.ClientOption{option.WithEndpoint(e.URL + "/"), option.WithoutAuthentication()}
}

// Setenv points HYPERCOMPUTE_EMULATOR_HOST at this emulator for the rest of the test.
func (e *Env) Setenv() { e.t.Setenv("HYPERCOMPUTE_EMULATOR_HOST", e.Host) }

// Calls returns the call counters.
func (e *Env) Calls() core.CallsSnapshot { return e.Server.Calls.Snapshot() }

// CallCount returns how often a method (e.g. "compute.networks.insert") was called.
func (e *Env) CallCount(method string) int64 { return e.Server.Calls.Count(method) }

// ResetCalls zeroes the counters.
func (e *Env) ResetCalls() { e.Server.Calls.Reset() }

// Inventory lists the held resources (operations excluded).
func (e *Env) Inventory() emulator.Inventory { return e.Emulator.Inventory(false) }

// SetFaults merges spec into the fault configuration, failing the test on an invalid spec.
func (e *Env) SetFaults(spec core.FaultSpec) {
	e.t.Helper()
	if err := e.Server.Faults.Apply(spec); err != nil {
		e.t.Fatalf("emulatortest: faults: %v", err)
	}
}

// ClearFaults removes every fault.
func (e *Env) ClearFaults() { e.Server.Faults.Clear() }

// SetQuota limits metric in region ("global" for project-wide metrics); a negative limit removes the limit.
func (e *Env) SetQuota(region, metric string, limit float64) {
	e.Server.Quotas.SetLimit(region, metric, limit)
}

// Reset returns the emulator to a fresh start.
func (e *Env) Reset() { e.Emulator.Reset() }

// Store is the resource store.
func (e *Env) Store() *core.Store { return e.Server.Store }
