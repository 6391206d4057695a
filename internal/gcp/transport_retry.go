package gcp

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// RetryTransport is the shared transport of every client: it sets the User-Agent and
// resends a request that met a transient failure (see retryDecision), with exponential
// backoff and full jitter, honouring Retry-After and the request's context. A resend
// carries the same URL and body, so a Compute requestId stays the same.
type RetryTransport struct {
	// Next sends one try (the auth layer and the network, or a test double).
	Next      http.RoundTripper
	UserAgent string
	// Policy must have its defaults filled (Config.retryConfig does that).
	Policy RetryConfig

	requests atomic.Int64
	attempts atomic.Int64
	retries  atomic.Int64
	gaveUp   atomic.Int64
}

// TransportStats counts what the transport did since it was built (or last reset).
type TransportStats struct {
	// Requests is the number of logical requests (RoundTrip calls).
	Requests int64
	// Attempts is the number of tries sent to the server, resends included.
	Attempts int64
	// Retries is the number of resends.
	Retries int64
	// GaveUp counts requests that still failed transiently when attempts or time ran out.
	GaveUp int64
}

// Stats returns the counters.
func (t *RetryTransport) Stats() TransportStats {
	return TransportStats{
		Requests: t.requests.Load(),
		Attempts: t.attempts.Load(),
		Retries:  t.retries.Load(),
		GaveUp:   t.gaveUp.Load(),
	}
}

// ResetStats zeroes the counters (benchmarks measure one phase at a time).
func (t *RetryTransport) ResetStats() {
	t.requests.Store(0)
	t.attempts.Store(0)
	t.retries.Store(0)
	t.gaveUp.Store(0)
}

// RoundTrip implements http.RoundTripper.
func (t *RetryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.requests.Add(1)
	ctx := req.Context()
	getBody, err := replayableBody(req)
	if err != nil {
		return nil, err
	}
	maxAttempts := max(t.Policy.MaxAttempts, 1)
	start := time.Now()
	for attempt := 1; ; attempt++ {
		try := req.Clone(ctx)
		if attempt > 1 && getBody != nil {
			if try.Body, err = getBody(); err != nil {
				return nil, err
			}
		}
		t.setUserAgent(try)

		t.attempts.Add(1)
		sent := time.Now()
		resp, err := t.Next.RoundTrip(try)
		retry, why := retryDecision(req, resp, err)
		logTry(ctx, req, resp, err, attempt, time.Since(sent))
		if !retry || ctx.Err() != nil {
			return resp, err
		}

		delay := t.backoff(attempt)
		if ra, ok := retryAfter(resp); ok && ra > delay {
			delay = ra
		}
		if attempt >= maxAttempts || time.Since(start)+delay > t.Policy.MaxElapsed {
			t.gaveUp.Add(1)
			tflog.Warn(ctx, "GCP API call failed after retries", map[string]any{
				"method": req.Method, "path": req.URL.Path, "attempts": attempt, "reason": why,
			})
			return resp, err
		}
		if resp != nil {
			drainAndClose(resp.Body)
		}
		tflog.Info(ctx, "retrying GCP API call", map[string]any{
			"method": req.Method, "path": req.URL.Path, "attempt": attempt,
			"reason": why, "delay_ms": delay.Milliseconds(),
		})
		if err := sleepCtx(ctx, delay); err != nil {
			return nil, err
		}
		t.retries.Add(1)
	}
}

func (t *RetryTransport) setUserAgent(r *http.Request) {
	if t.UserAgent == "" {
		return
	}
	// Keep the library's own product token after ours: it tells Google which client sent it.
	if lib := r.Header.Get("User-Agent"); lib != "" {
		r.Header.Set("User-Agent", t.UserAgent+" "+lib)
		return
	}
	r.Header.Set("User-Agent", t.UserAgent)
}

// backoff is "full jitter": a uniform draw in [0, min(MaxBackoff, Initial·2^(attempt-1))].
func (t *RetryTransport) backoff(attempt int) time.Duration {
	ceiling := t.Policy.InitialBackoff
	for i := 1; i < attempt && ceiling < t.Policy.MaxBackoff; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, t.Policy.MaxBackoff)
	if ceiling <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(ceiling) + 1))
}

// replayableBody returns a function that yields a fresh copy of the request body for
// resends, buffering the body when the request cannot rebuild it itself.
func replayableBody(req *http.Request) (func() (io.ReadCloser, error), error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		return req.GetBody, nil
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }, nil
}

func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp == nil {
		return 0, false
	}
	v := resp.Header.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(time.Until(at), 0), true
	}
	return 0, false
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

func drainAndClose(body io.ReadCloser) {
	if body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	body.Close()
}

// logTry logs one try without headers, query or body: they may hold tokens.
func logTry(ctx context.Context, req *http.Request, resp *http.Response, err error, attempt int, took time.Duration) {
	fields := map[string]any{
		"method": req.Method, "path": req.URL.Path, "attempt": attempt, "duration_ms": took.Milliseconds(),
	}
	if resp != nil {
		fields["status"] = resp.StatusCode
	}
	if err != nil {
		fields["error"] = err.Error()
	}
	tflog.Debug(ctx, "GCP API call", fields)
}

func isCertificateError(err error) bool {
	var cv *tls.CertificateVerificationError
	return errors.As(err, &cv)
}
