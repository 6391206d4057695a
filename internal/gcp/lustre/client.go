package lustre

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
	"google.golang.org/api/option/internaloption"
	htransport "google.golang.org/api/transport/http"
)

// DefaultEndpoint is the production base URL; API paths ("v1/...") resolve against it.
const DefaultEndpoint = "https://lustre.googleapis.com/"

// Client calls the Managed Lustre v1 API. Errors from the API are *googleapi.Error;
// failed operations give *OperationError.
type Client struct {
	hc       *http.Client
	endpoint string

	// PollInitial, PollMax and PollMultiplier shape WaitOperation's polling
	// (defaults 50ms, 10s, ×2).
	PollInitial    time.Duration
	PollMax        time.Duration
	PollMultiplier float64
}

// NewClient builds a client from the usual client options: option.WithHTTPClient to
// share a transport, option.WithEndpoint to point elsewhere, or credential options.
func NewClient(ctx context.Context, opts ...option.ClientOption) (*Client, error) {
	all := append([]option.ClientOption{
		internaloption.WithDefaultEndpoint(DefaultEndpoint),
		internaloption.WithDefaultScopes("https://www.googleapis.com/auth/cloud-platform"),
	}, opts...)
	hc, endpoint, err := htransport.NewClient(ctx, all...)
	if err != nil {
		return nil, fmt.Errorf("lustre client: %w", err)
	}
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	if !strings.HasSuffix(endpoint, "/") {
		endpoint += "/"
	}
	return &Client{hc: hc, endpoint: endpoint}, nil
}

// Endpoint returns the base URL the client sends to.
func (c *Client) Endpoint() string { return c.endpoint }

// Close releases nothing today; it exists so the client closes like the others.
func (c *Client) Close() error { return nil }

// CreateInstance starts creating instance id under parent
// (projects/{project}/locations/{zone}).
func (c *Client) CreateInstance(ctx context.Context, parent, id string, inst *Instance) (*Operation, error) {
	if inst == nil {
		return nil, fmt.Errorf("lustre: CreateInstance needs an instance")
	}
	q := url.Values{"instanceId": {id}, "requestId": {uuid.NewString()}}
	return c.operationCall(ctx, http.MethodPost, "v1/"+parent+"/instances", q, inst)
}

// GetInstance reads an instance by its full name.
func (c *Client) GetInstance(ctx context.Context, name string) (*Instance, error) {
	inst := &Instance{}
	if err := c.do(ctx, http.MethodGet, "v1/"+name, nil, nil, inst); err != nil {
		return nil, err
	}
	return inst, nil
}

// ListInstancesPage reads one page of the instances under parent; pageSize 0 lets the
// server choose.
func (c *Client) ListInstancesPage(ctx context.Context, parent string, pageSize int, pageToken string) (*ListInstancesResponse, error) {
	q := url.Values{}
	if pageSize > 0 {
		q.Set("pageSize", strconv.Itoa(pageSize))
	}
	if pageToken != "" {
		q.Set("pageToken", pageToken)
	}
	page := &ListInstancesResponse{}
	if err := c.do(ctx, http.MethodGet, "v1/"+parent+"/instances", q, nil, page); err != nil {
		return nil, err
	}
	return page, nil
}

// ListInstances reads every page of the instances under parent. A parent of
// projects/{project}/locations/- lists all locations.
func (c *Client) ListInstances(ctx context.Context, parent string) ([]*Instance, error) {
	var all []*Instance
	token := ""
	for {
		page, err := c.ListInstancesPage(ctx, parent, 0, token)
		if err != nil {
			return nil, err
		}
		all = append(all, page.Instances...)
		if page.NextPageToken == "" || page.NextPageToken == token {
			return all, nil
		}
		token = page.NextPageToken
	}
}

// PatchInstance starts updating the fields of inst named in updateMask (field paths
// such as "capacityGib", "description", "labels"); inst.Name selects the instance.
func (c *Client) PatchInstance(ctx context.Context, inst *Instance, updateMask []string) (*Operation, error) {
	if inst == nil || inst.Name == "" {
		return nil, fmt.Errorf("lustre: PatchInstance needs the instance name")
	}
	q := url.Values{"updateMask": {strings.Join(updateMask, ",")}, "requestId": {uuid.NewString()}}
	return c.operationCall(ctx, http.MethodPatch, "v1/"+inst.Name, q, inst)
}

// DeleteInstance starts deleting an instance.
func (c *Client) DeleteInstance(ctx context.Context, name string) (*Operation, error) {
	q := url.Values{"requestId": {uuid.NewString()}}
	return c.operationCall(ctx, http.MethodDelete, "v1/"+name, q, nil)
}

// GetOperation reads an operation by its full name.
func (c *Client) GetOperation(ctx context.Context, name string) (*Operation, error) {
	op := &Operation{}
	if err := c.do(ctx, http.MethodGet, "v1/"+name, nil, nil, op); err != nil {
		return nil, err
	}
	return op, nil
}

func (c *Client) operationCall(ctx context.Context, method, path string, q url.Values, in any) (*Operation, error) {
	op := &Operation{}
	if err := c.do(ctx, method, path, q, in, op); err != nil {
		return nil, err
	}
	return op, nil
}

// do sends one call. A requestId in q is generated once by the caller of do, so the
// shared transport's resends reuse it.
func (c *Client) do(ctx context.Context, method, path string, q url.Values, in, out any) error {
	u := c.endpoint + escapePath(path)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	buf, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if err := googleapi.CheckResponseWithBody(resp, buf); err != nil {
		return err
	}
	if out == nil || len(bytes.TrimSpace(buf)) == 0 {
		return nil
	}
	if err := json.Unmarshal(buf, out); err != nil {
		return fmt.Errorf("lustre: decoding %s %s answer: %w", method, path, err)
	}
	return nil
}

// escapePath escapes each segment of a resource path, keeping the slashes.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
