package gcp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"
)

// sequence answers with the given statuses in turn, then 200 {} for ever.
func sequence(statuses ...int) func(http.ResponseWriter, *http.Request, []byte) {
	var n atomic.Int32
	return func(w http.ResponseWriter, r *http.Request, _ []byte) {
		i := int(n.Add(1)) - 1
		if i < len(statuses) {
			writeJSON(w, statuses[i], computeError(statuses[i], "backendError", "try again"))
			return
		}
		writeJSON(w, 200, map[string]any{})
	}
}

func newRetryTransport(p RetryConfig) *RetryTransport {
	return &RetryTransport{Next: http.DefaultTransport, UserAgent: "test-agent", Policy: p}
}

func get(t *testing.T, rt http.RoundTripper, ctx context.Context, u string) (*http.Response, error) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	resp, err := (&http.Client{Transport: rt}).Do(req)
	if err == nil {
		t.Cleanup(func() { resp.Body.Close() })
	}
	return resp, err
}

func TestRetryTransientStatusesThenSucceed(t *testing.T) {
	for _, status := range []int{429, 500, 502, 503} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			f := newFake(t, sequence(status, status))
			rt := newRetryTransport(fastRetry)
			resp, err := get(t, rt, context.Background(), f.URL+"/x")
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("got %v, %v; want 200 after retries", resp, err)
			}
			if got := len(f.requests()); got != 3 {
				t.Errorf("server saw %d tries, want 3", got)
			}
			if s := rt.Stats(); s.Requests != 1 || s.Attempts != 3 || s.Retries != 2 || s.GaveUp != 0 {
				t.Errorf("stats = %+v", s)
			}
		})
	}
}

func TestRetryRateLimit403ButNotResourceQuota403(t *testing.T) {
	cases := []struct {
		name      string
		body      map[string]any
		wantTries int
	}{
		{"rateLimitExceeded", computeError(403, "rateLimitExceeded", "Rate Limit Exceeded"), 2},
		{"userRateLimitExceeded", computeError(403, "userRateLimitExceeded", "User Rate Limit Exceeded"), 2},
		{"per-minute quota metric", computeError(403, "forbidden",
			"Quota exceeded for quota metric 'Queries' and limit 'Queries per minute' of service 'compute.googleapis.com'"), 2},
		{"ErrorInfo RATE_LIMIT_EXCEEDED", map[string]any{"error": map[string]any{
			"code": 403, "message": "slow down", "status": "PERMISSION_DENIED",
			"details": []any{map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "RATE_LIMIT_EXCEEDED"}},
		}}, 2},
		{"resource quota", computeError(403, "quotaExceeded", "Quota 'CPUS' exceeded.  Limit: 24.0 in region us-central1."), 1},
		{"permission denied", computeError(403, "forbidden", "Required 'compute.networks.create' permission"), 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
				if n.Add(1) == 1 {
					writeJSON(w, 403, tc.body)
					return
				}
				writeJSON(w, 200, map[string]any{"ok": true})
			})
			resp, err := get(t, newRetryTransport(fastRetry), context.Background(), f.URL+"/x")
			if err != nil {
				t.Fatal(err)
			}
			if got := len(f.requests()); got != tc.wantTries {
				t.Fatalf("server saw %d tries, want %d", got, tc.wantTries)
			}
			body, _ := io.ReadAll(resp.Body)
			if tc.wantTries == 1 {
				// The caller must still read the whole error body after the transport peeked at it.
				if resp.StatusCode != 403 || !strings.Contains(string(body), tc.body["error"].(map[string]any)["message"].(string)) {
					t.Errorf("caller got %d %s", resp.StatusCode, body)
				}
			} else if resp.StatusCode != 200 {
				t.Errorf("caller got %d %s, want the retried 200", resp.StatusCode, body)
			}
		})
	}
}

func TestRetryNotOnClientErrors(t *testing.T) {
	for _, status := range []int{400, 404, 409, 412} {
		f := newFake(t, sequence(status))
		resp, err := get(t, newRetryTransport(fastRetry), context.Background(), f.URL+"/x")
		if err != nil || resp.StatusCode != status {
			t.Fatalf("%d: got %v, %v", status, resp, err)
		}
		if got := len(f.requests()); got != 1 {
			t.Errorf("%d: server saw %d tries, want 1", status, got)
		}
	}
}

func TestRetryBoundedAttempts(t *testing.T) {
	f := newFake(t, sequence(503, 503, 503, 503, 503, 503, 503, 503, 503, 503))
	p := fastRetry
	p.MaxAttempts = 4
	rt := newRetryTransport(p)
	resp, err := get(t, rt, context.Background(), f.URL+"/x")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 503 {
		t.Errorf("status = %d, want the last 503", resp.StatusCode)
	}
	if got := len(f.requests()); got != 4 {
		t.Errorf("server saw %d tries, want 4", got)
	}
	if s := rt.Stats(); s.GaveUp != 1 || s.Retries != 3 {
		t.Errorf("stats = %+v", s)
	}
}

func TestRetryBoundedTimeAndRetryAfter(t *testing.T) {
	// A Retry-After beyond the time budget ends the retries at once instead of sleeping it.
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		w.Header().Set("Retry-After", "120")
		writeJSON(w, 429, computeError(429, "rateLimitExceeded", "slow down"))
	})
	p := fastRetry
	p.MaxElapsed = time.Second
	start := time.Now()
	resp, err := get(t, newRetryTransport(p), context.Background(), f.URL+"/x")
	if err != nil || resp.StatusCode != 429 {
		t.Fatalf("got %v, %v", resp, err)
	}
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("took %v; the transport slept instead of giving up", took)
	}
	if got := len(f.requests()); got != 1 {
		t.Errorf("server saw %d tries, want 1", got)
	}
}

func TestRetryAfterParsing(t *testing.T) {
	h := func(v string) *http.Response { return &http.Response{Header: http.Header{"Retry-After": {v}}} }
	if d, ok := retryAfter(h("3")); !ok || d != 3*time.Second {
		t.Errorf("seconds form: %v %v", d, ok)
	}
	future := time.Now().Add(10 * time.Second).UTC().Format(http.TimeFormat)
	if d, ok := retryAfter(h(future)); !ok || d < 8*time.Second || d > 11*time.Second {
		t.Errorf("date form: %v %v", d, ok)
	}
	if _, ok := retryAfter(h("soon")); ok {
		t.Error("garbage accepted")
	}
	// A Retry-After longer than the jittered delay is what the transport sleeps.
	var n atomic.Int32
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 503, computeError(503, "backendError", "busy"))
			return
		}
		writeJSON(w, 200, map[string]any{})
	})
	start := time.Now()
	if resp, err := get(t, newRetryTransport(fastRetry), context.Background(), f.URL+"/x"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("got %v, %v", resp, err)
	}
	if took := time.Since(start); took < time.Second {
		t.Errorf("retried after %v, before the server's Retry-After of 1s", took)
	}
}

func TestRetryStopsWhenContextEnds(t *testing.T) {
	f := newFake(t, sequence(503, 503, 503, 503, 503, 503, 503, 503))
	p := RetryConfig{MaxAttempts: 8, InitialBackoff: 10 * time.Second, MaxBackoff: 10 * time.Second, MaxElapsed: time.Minute}
	rt := newRetryTransport(p)
	// Full jitter may draw a short first sleep; whichever comes first, the call must end
	// with the context, long before the backoff would.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := get(t, rt, ctx, f.URL+"/x")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v after the context ended", took)
	}
}

// failingRT fails every try with a network error.
type failingRT struct{ tries atomic.Int32 }

func (f *failingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	f.tries.Add(1)
	if r.Body != nil {
		r.Body.Close()
	}
	return nil, errors.New("connection reset by peer")
}

func TestRetryNetworkErrorsOnlyWhenResendIsSafe(t *testing.T) {
	cases := []struct {
		method, url string
		wantTries   int32
	}{
		{http.MethodGet, "http://x/compute/v1/projects/p/global/networks/n", 3},
		{http.MethodPost, "http://x/compute/v1/projects/p/global/networks", 1},
		{http.MethodPost, "http://x/compute/v1/projects/p/global/networks?requestId=abc", 3},
	}
	for _, tc := range cases {
		f := &failingRT{}
		p := fastRetry
		p.MaxAttempts = 3
		rt := &RetryTransport{Next: f, Policy: p}
		req, _ := http.NewRequest(tc.method, tc.url, strings.NewReader("{}"))
		if _, err := rt.RoundTrip(req); err == nil {
			t.Fatalf("%s %s: no error", tc.method, tc.url)
		}
		if got := f.tries.Load(); got != tc.wantTries {
			t.Errorf("%s %s: %d tries, want %d", tc.method, tc.url, got, tc.wantTries)
		}
	}
}

func TestRetryReplaysBodyAndRequestID(t *testing.T) {
	// Through the real Compute client: the resends carry the very same requestId and body,
	// so the server can answer them with the first request's operation.
	var n atomic.Int32
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if n.Add(1) <= 2 {
			writeJSON(w, 503, computeError(503, "backendError", "busy"))
			return
		}
		writeJSON(w, 200, map[string]any{"name": "op-1", "status": "DONE", "operationType": "insert"})
	})
	c := emulatorClients(t, f)
	req := WithRequestID(&computepb.InsertNetworkRequest{
		Project:         "p",
		NetworkResource: &computepb.Network{Name: proto.String("net-a"), AutoCreateSubnetworks: proto.Bool(false)},
	})
	if _, err := c.Networks.Insert(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("server saw %d tries, want 3", len(reqs))
	}
	for i, r := range reqs {
		q, _ := url.ParseQuery(r.Query)
		if q.Get("requestId") != req.GetRequestId() || r.Body != reqs[0].Body || !strings.Contains(r.Body, "net-a") {
			t.Errorf("try %d: requestId %q body %q; want %q and the first body", i, q.Get("requestId"), r.Body, req.GetRequestId())
		}
	}
	if c.Stats().Retries != 2 {
		t.Errorf("stats = %+v", c.Stats())
	}
}

func TestUserAgentSet(t *testing.T) {
	f := newFake(t, sequence())
	c := emulatorClients(t, f, func(c *Config) { c.UserAgent = "hypercompute/1.2.3" })
	_, _ = c.Networks.Get(context.Background(), &computepb.GetNetworkRequest{Project: "p", Network: "n"})
	if ua := f.requests()[0].Header.Get("User-Agent"); !strings.HasPrefix(ua, "hypercompute/1.2.3") {
		t.Errorf("User-Agent = %q", ua)
	}
}

// recordingRT reads each try's body and answers 503 until the third try.
type recordingRT struct{ bodies []string }

func (r *recordingRT) RoundTrip(req *http.Request) (*http.Response, error) {
	b := ""
	if req.Body != nil {
		raw, _ := io.ReadAll(req.Body)
		req.Body.Close()
		b = string(raw)
	}
	r.bodies = append(r.bodies, b)
	status := 503
	if len(r.bodies) == 3 {
		status = 200
	}
	return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}")), Request: req}, nil
}

func TestRetryReplaysBodyWithoutRelyingOnNetHTTP(t *testing.T) {
	// One request can rebuild its body (GetBody), the other cannot (a plain reader):
	// the transport must resend the same bytes either way.
	for name, body := range map[string]io.Reader{
		"GetBody":      strings.NewReader(`{"name":"net-a"}`),
		"plain reader": io.MultiReader(strings.NewReader(`{"name":"net-a"}`)),
	} {
		rec := &recordingRT{}
		rt := &RetryTransport{Next: rec, Policy: fastRetry}
		req, _ := http.NewRequest(http.MethodPost, "http://x/p?requestId=r1", body)
		resp, err := rt.RoundTrip(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %v %v", name, resp, err)
		}
		for i, b := range rec.bodies {
			if b != `{"name":"net-a"}` {
				t.Errorf("%s: try %d sent %q", name, i, b)
			}
		}
	}
}
