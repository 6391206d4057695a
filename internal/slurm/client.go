package slurm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Config says how to reach slurmrestd.
type Config struct {
	// BaseURL is http://host:port, https://host:port, or unix:///path/to/socket.
	BaseURL string
	// User is sent as X-SLURM-USER-NAME with each token (slurmrestd 22.05
	// needs it) and as the reason_uid of node updates.
	User string
	// Token returns a JWT for User (see TokenFromScontrol). Nil sends no
	// credentials: right for rest_auth/local over a unix socket.
	Token func(ctx context.Context) (string, error)
	// HTTPClient defaults to one with a 60 s timeout. For a unix socket the
	// client builds its own transport and keeps only this client's Timeout.
	HTTPClient *http.Client
	// Version pins the REST API version (e.g. "v0.0.40") and skips discovery.
	Version string
}

// Client talks to one slurmrestd. It is safe for concurrent use; the API
// version is discovered on first use and kept.
type Client struct {
	base    string
	user    string
	token   func(ctx context.Context) (string, error)
	hc      *http.Client
	pinned  string
	initErr error

	mu      sync.Mutex
	ad      adapter
	offered []string
}

const maxReplyBytes = 64 << 20

// NewClient returns a client; a bad Config surfaces as the error of the first call.
func NewClient(cfg Config) *Client {
	c := &Client{user: cfg.User, token: cfg.Token, hc: cfg.HTTPClient, pinned: cfg.Version}
	if c.hc == nil {
		c.hc = &http.Client{Timeout: 60 * time.Second}
	}
	u, err := url.Parse(cfg.BaseURL)
	switch {
	case err != nil:
		c.initErr = fmt.Errorf("slurm: bad BaseURL %q: %w", cfg.BaseURL, err)
	case u.Scheme == "unix":
		sock := u.Path
		if sock == "" {
			sock = u.Opaque
		}
		if sock == "" {
			c.initErr = fmt.Errorf("slurm: BaseURL %q names no socket", cfg.BaseURL)
			break
		}
		dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}
		c.hc = &http.Client{Timeout: c.hc.Timeout, Transport: &http.Transport{DialContext: dial}}
		c.base = "http://slurmrestd"
	case u.Scheme == "http" || u.Scheme == "https":
		if u.Host == "" {
			c.initErr = fmt.Errorf("slurm: BaseURL %q has no host", cfg.BaseURL)
		}
		c.base = strings.TrimSuffix(u.Scheme+"://"+u.Host+u.Path, "/")
	default:
		c.initErr = fmt.Errorf("slurm: BaseURL %q: want http://, https:// or unix://", cfg.BaseURL)
	}
	if c.pinned != "" {
		if a, ok := adapters[c.pinned]; ok {
			c.ad = a
		} else {
			c.initErr = fmt.Errorf("slurm: Version %q not supported (supported: %v)", c.pinned, SupportedVersions())
		}
	}
	return c
}

// reply is one HTTP exchange.
type reply struct {
	status int
	body   []byte
}

// send does one request without interpreting the reply.
func (c *Client) send(ctx context.Context, method, path string, body any) (reply, error) {
	if c.initErr != nil {
		return reply{}, c.initErr
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return reply{}, fmt.Errorf("slurm: encode %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return reply{}, fmt.Errorf("slurm: %s %s: %w", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != nil {
		tok, err := c.token(ctx)
		if err != nil {
			return reply{}, fmt.Errorf("slurm: token for %q: %w", c.user, err)
		}
		// From v0.0.40 slurmrestd can take the user from the token alone.
		if c.user != "" {
			req.Header.Set("X-SLURM-USER-NAME", c.user)
		}
		req.Header.Set("X-SLURM-USER-TOKEN", tok)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return reply{}, fmt.Errorf("slurm: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes))
	if err != nil {
		return reply{}, fmt.Errorf("slurm: %s %s: read reply: %w", method, path, err)
	}
	return reply{status: resp.StatusCode, body: b}, nil
}

// call does one request and turns HTTP failures and slurmrestd's "errors"
// list into an *APIError.
func (c *Client) call(ctx context.Context, op, method, path string, body any) ([]byte, error) {
	r, err := c.send(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	if err := checkReply(op, method, path, r); err != nil {
		return nil, err
	}
	return r.body, nil
}

func checkReply(op, method, path string, r reply) error {
	var env envelope
	isJSON := looksLikeJSON(r.body) && json.Unmarshal(r.body, &env) == nil
	entries := env.entries()
	if r.status < 400 && len(entries) == 0 {
		if !isJSON {
			return &APIError{Op: op, Method: method, Path: path, HTTPStatus: r.status,
				Body: "reply is not JSON: " + snippet(r.body)}
		}
		return nil
	}
	e := &APIError{Op: op, Method: method, Path: path, HTTPStatus: r.status, Errors: entries}
	if !isJSON {
		e.Body = snippet(r.body)
	}
	return e
}

func looksLikeJSON(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && (b[0] == '{' || b[0] == '[')
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// versioned returns the adapter and the path prefix /slurm/<version>.
func (c *Client) versioned(ctx context.Context) (adapter, string, error) {
	a, err := c.adapter(ctx)
	if err != nil {
		return nil, "", err
	}
	return a, "/slurm/" + a.version(), nil
}
