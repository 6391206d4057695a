package slurm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
)

// APIVersion is the REST API version the client talks, discovering it on
// first use.
func (c *Client) APIVersion(ctx context.Context) (string, error) {
	a, err := c.adapter(ctx)
	if err != nil {
		return "", err
	}
	return a.version(), nil
}

// OfferedVersions lists the slurm/v0.0.NN plugins the server offers, newest
// first (only the answering one when the server had to be probed). Nil when
// the version was pinned in Config.
func (c *Client) OfferedVersions(ctx context.Context) ([]string, error) {
	if _, err := c.adapter(ctx); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.offered), nil
}

func (c *Client) adapter(ctx context.Context) (adapter, error) {
	if c.initErr != nil {
		return nil, c.initErr
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ad != nil {
		return c.ad, nil
	}
	// A failed discovery is not kept: slurmrestd may just be starting.
	offered, err := c.discover(ctx)
	if err != nil {
		return nil, err
	}
	a, err := pickVersion(offered)
	if err != nil {
		return nil, err
	}
	c.ad, c.offered = a, offered
	return a, nil
}

var slurmPathRE = regexp.MustCompile(`^/slurm/(v[0-9]+\.[0-9]+\.[0-9]+)/`)

// discover asks the server for its OpenAPI description (GET /openapi/v3,
// then the older /openapi) and collects the versions in its /slurm/ paths.
// A server that serves neither is probed with GET /slurm/<v>/ping, newest
// supported version first.
func (c *Client) discover(ctx context.Context) ([]string, error) {
	for _, path := range []string{"/openapi/v3", "/openapi"} {
		r, err := c.send(ctx, http.MethodGet, path, nil)
		if err != nil {
			return nil, err
		}
		if r.status == http.StatusUnauthorized || r.status == http.StatusForbidden {
			return nil, checkReply("discover API versions", http.MethodGet, path, r)
		}
		if r.status != http.StatusOK {
			continue
		}
		if vs := versionsInSpec(r.body); len(vs) > 0 {
			return vs, nil
		}
	}
	var lastErr error
	for _, v := range SupportedVersions() {
		path := "/slurm/" + v + "/ping"
		r, err := c.send(ctx, http.MethodGet, path, nil)
		if err != nil {
			return nil, err
		}
		switch {
		case r.status == http.StatusUnauthorized || r.status == http.StatusForbidden:
			return nil, checkReply("discover API versions", http.MethodGet, path, r)
		case r.status == http.StatusOK && looksLikeJSON(r.body):
			return []string{v}, nil
		}
		lastErr = checkReply("discover API versions", http.MethodGet, path, r)
	}
	return nil, fmt.Errorf("slurm: no supported REST API version answers at %s (tried /openapi/v3, /openapi and %v): %w",
		c.base, SupportedVersions(), lastErr)
}

// versionsInSpec reads the versions out of an OpenAPI document's paths.
func versionsInSpec(body []byte) []string {
	var spec struct {
		Paths map[string]json.RawMessage `json:"paths"`
	}
	if json.Unmarshal(body, &spec) != nil {
		return nil
	}
	var out []string
	for p := range spec.Paths {
		if m := slurmPathRE.FindStringSubmatch(p); m != nil && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	sortVersionsDesc(out)
	return out
}
