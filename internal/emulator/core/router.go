package core

import (
	"context"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// Route describes one API method for counting and fault injection.
type Route struct {
	// Method is the discovery method id: "compute.networks.insert", "file.projects.locations.instances.create".
	// Methods starting with "compute." answer errors in Compute's format, others in the Google API format.
	Method string
	Class  Class
}

type routeKey struct{}

// RouteOf returns the route the request was dispatched to (zero Route outside a handler).
func RouteOf(r *http.Request) Route {
	rt, _ := r.Context().Value(routeKey{}).(Route)
	return rt
}

// MethodOf returns the discovery method id of the request being handled.
func MethodOf(r *http.Request) string { return RouteOf(r).Method }

// WithRoute returns ctx marked as serving route (for code that starts operations outside an HTTP handler).
func WithRoute(ctx context.Context, rt Route) context.Context {
	return context.WithValue(ctx, routeKey{}, rt)
}

// Router dispatches every API by path pattern (net/http ServeMux patterns: "POST /compute/v1/projects/{project}/global/networks").
// Each route is counted under its method id and is subject to the error-rate faults of that id.
type Router struct {
	mux    *http.ServeMux
	calls  *Calls
	faults *Faults
	ops    *Ops
	log    *slog.Logger
	// projects resolves projects/<number> to projects/<id> before dispatch, for every API at once.
	projects *projectIDs
	// tokens are the access tokens the metadata servers minted; authorize checks their scopes.
	tokens *Tokens
}

func newRouter(calls *Calls, faults *Faults, log *slog.Logger) *Router {
	return &Router{mux: http.NewServeMux(), calls: calls, faults: faults, log: log}
}

// Handle registers h for pattern under method id and class. It panics on conflicting patterns, like ServeMux.
//
// Mutating Compute methods ("compute.*") get requestId idempotency here, so no handler can forget it: a call
// repeating a requestId already seen in the project ({project} path value) answers the original operation, as it
// stands now, without running h; a requestId that is not a UUID is a 400.
func (rt *Router) Handle(pattern, method string, class Class, h http.HandlerFunc) {
	route := Route{Method: method, Class: class}
	if class == Mutating && strings.HasPrefix(method, "compute.") {
		h = rt.idempotent(h)
	}
	rt.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(WithRoute(r.Context(), route))
		if route.Class != Admin {
			rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
			w = rec
			defer func() { rt.calls.Record(route.Method, route.Class, rec.status >= 400) }()
			if e := rt.authorize(r, route); e != nil {
				e.write(w)
				return
			}
			if e, after := rt.faults.SyncErrorMode(route.Method); e != nil {
				if after {
					h(&lostAnswer{header: http.Header{}}, r)
				}
				WriteError(w, r, e)
				return
			}
		}
		h(w, r)
	})
}

// ServeHTTP serves a request; it first collapses doubled slashes, because clients built with an endpoint ending
// in "/" ask for "//compute/v1/..." and ServeMux would answer those with a redirect.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if strings.Contains(r.URL.Path, "//") {
		r2 := *r
		u := *r.URL
		u.Path = collapseSlashes(u.Path)
		if u.RawPath != "" {
			u.RawPath = collapseSlashes(u.RawPath)
		}
		r2.URL = &u
		r = &r2
	}
	if rt.projects != nil {
		r = rt.projects.canonicalProjects(r)
	}
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	_, pattern := rt.mux.Handler(r)
	if pattern == "" {
		WriteError(rec, r, notFoundRoute(r))
	} else {
		rt.mux.ServeHTTP(rec, r)
	}
	if rt.log.Enabled(r.Context(), slog.LevelDebug) {
		rt.log.Debug("request", "method", r.Method, "path", r.URL.Path, "status", rec.status, "duration", time.Since(start).Round(time.Microsecond))
	}
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func (rt *Router) idempotent(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("requestId")
		if id != "" {
			if !uuidRE.MatchString(id) || id == "00000000-0000-0000-0000-000000000000" {
				WriteError(w, r, InvalidField("requestId", id, "The request id must be a valid UUID with the exception that zero UUID is not supported."))
				return
			}
			if op, ok := rt.ops.ByRequestID(r.PathValue("project"), id); ok {
				WriteJSON(w, http.StatusOK, op)
				return
			}
		}
		h(w, r)
	}
}

func notFoundRoute(r *http.Request) *APIError {
	e := &APIError{Code: http.StatusNotFound, Reason: "notFound", Message: "The emulator does not serve " + r.Method + " " + r.URL.Path}
	return e
}

func collapseSlashes(p string) string {
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	return p
}

type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wrote {
		s.status, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	s.wrote = true
	return s.ResponseWriter.Write(b)
}

// Flush lets streaming handlers (metadata wait_for_change) flush through the recorder.
func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// lostAnswer swallows a handler's answer for AfterHandler faults.
type lostAnswer struct{ header http.Header }

func (l *lostAnswer) Header() http.Header         { return l.header }
func (l *lostAnswer) Write(b []byte) (int, error) { return len(b), nil }
func (l *lostAnswer) WriteHeader(int)             {}
