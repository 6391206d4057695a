package gcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorded is one request as the fake server saw it.
type recorded struct {
	Method string
	Path   string
	Query  string
	Body   string
	Header http.Header
}

// fakeServer is a tiny stand-in for the APIs: handle answers, every request is kept.
type fakeServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []recorded
}

func newFake(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, body []byte)) *fakeServer {
	t.Helper()
	f := &fakeServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, recorded{r.Method, r.URL.Path, r.URL.RawQuery, string(body), r.Header.Clone()})
		f.mu.Unlock()
		handle(w, r, body)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

func (f *fakeServer) host() string { return strings.TrimPrefix(f.URL, "http://") }

// fastRetry and fastPoll keep tests quick while still exercising the loops.
var (
	fastRetry = RetryConfig{MaxAttempts: 5, InitialBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond, MaxElapsed: 5 * time.Second}
	fastPoll  = PollConfig{Initial: time.Millisecond, Max: 5 * time.Millisecond, Multiplier: 2}
)

// emulatorClients builds Clients against f the way the provider does for the local cloud.
func emulatorClients(t *testing.T, f *fakeServer, edit ...func(*Config)) *Clients {
	t.Helper()
	cfg := Config{Project: "p", Region: "us-central1", Zone: "us-central1-a",
		EmulatorHost: f.host(), Retry: fastRetry, Poll: fastPoll}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := NewClients(context.Background(), cfg)
	if err != nil {
		t.Fatalf("NewClients: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// computeError is the body Compute sends with a synchronous error.
func computeError(code int, reason, msg string) map[string]any {
	return map[string]any{"error": map[string]any{
		"code": code, "message": msg,
		"errors": []any{map[string]any{"domain": "global", "reason": reason, "message": msg}},
	}}
}
