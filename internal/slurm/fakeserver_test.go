package slurm

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// fakeRestd replays testdata replies the way slurmrestd sends them, for the
// API versions no local slurmrestd serves.
type fakeRestd struct {
	t      *testing.T
	srv    *httptest.Server
	token  string // when set, requests without this X-SLURM-USER-TOKEN get 401
	mu     sync.Mutex
	routes map[string]fakeReply // "METHOD /path"
	seen   []seenRequest
}

type fakeReply struct {
	status int
	file   string // under testdata/
	body   string // when file is empty
}

type seenRequest struct {
	Method, Path, User, Token string
	Body                      []byte
}

func newFakeRestd(t *testing.T) *fakeRestd {
	f := &fakeRestd{t: t, routes: map[string]fakeReply{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeRestd) on(method, path string, status int, file string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[method+" "+path] = fakeReply{status: status, file: file}
}

func (f *fakeRestd) onBody(method, path string, status int, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[method+" "+path] = fakeReply{status: status, body: body}
}

func (f *fakeRestd) requests() []seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenRequest(nil), f.seen...)
}

func (f *fakeRestd) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.seen = append(f.seen, seenRequest{Method: r.Method, Path: r.URL.Path, Body: body,
		User: r.Header.Get("X-SLURM-USER-NAME"), Token: r.Header.Get("X-SLURM-USER-TOKEN")})
	route, ok := f.routes[r.Method+" "+r.URL.Path]
	f.mu.Unlock()
	if f.token != "" && r.Header.Get("X-SLURM-USER-TOKEN") != f.token {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "Authentication failure")
		return
	}
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "Unable find requested URL. Please view /openapi/v3 for API reference.")
		return
	}
	data := []byte(route.body)
	if route.file != "" {
		var err error
		if data, err = os.ReadFile(filepath.Join("testdata", route.file)); err != nil {
			f.t.Errorf("fake slurmrestd: %v", err)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(route.status)
	w.Write(data)
}
