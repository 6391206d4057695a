package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"cloud.google.com/go/compute/metadata"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// attributesPath is the VM's whole attribute listing as one JSON object:
// one request (and one etag to wait on) covers the node config, the
// cluster and every partition key, including keys added later.
const attributesPath = "instance/attributes/?recursive=true"

// Metadata is the VM's metadata server: configuration in, reports out. It
// honours GCE_METADATA_HOST like every Google client library.
type Metadata struct {
	client *metadata.Client
	base   string
	http   *http.Client
}

// NewMetadata returns the client of this VM's metadata server.
func NewMetadata() *Metadata {
	host := os.Getenv("GCE_METADATA_HOST")
	if host == "" {
		host = "169.254.169.254"
	}
	return &Metadata{
		client: metadata.NewWithOptions(&metadata.Options{}),
		base:   "http://" + host + "/computeMetadata/v1/",
		http:   &http.Client{Timeout: 10 * time.Second},
	}
}

// Attributes returns every instance attribute.
func (m *Metadata) Attributes(ctx context.Context) (map[string]string, error) {
	v, err := m.client.GetWithContext(ctx, attributesPath)
	if err != nil {
		return nil, fmt.Errorf("reading instance metadata: %w", err)
	}
	return decodeAttributes(v)
}

func decodeAttributes(v string) (map[string]string, error) {
	attrs := map[string]string{}
	if err := json.Unmarshal([]byte(v), &attrs); err != nil {
		return nil, fmt.Errorf("instance metadata is not a JSON object of strings: %w", err)
	}
	return attrs, nil
}

// Watch calls fn with the attributes now and after every change, until
// ctx ends. The metadata server holds each request until the listing's
// etag changes; errors go to onErr and are retried, since the server may
// restart under a live VM.
func (m *Metadata) Watch(ctx context.Context, fn func(map[string]string), onErr func(error)) error {
	for {
		err := m.client.SubscribeWithContext(ctx, attributesPath, func(ctx context.Context, v string, ok bool) error {
			if !ok {
				return errors.New("the attribute listing vanished")
			}
			attrs, err := decodeAttributes(v)
			if err != nil {
				return err
			}
			fn(attrs)
			return nil
		})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		onErr(fmt.Errorf("watching instance metadata: %w", err))
		if err := sleepCtx(ctx, 2*time.Second); err != nil {
			return err
		}
	}
}

// InstanceName, Project and Zone identify this VM.
func (m *Metadata) InstanceName(ctx context.Context) (string, error) {
	return m.client.InstanceNameWithContext(ctx)
}

func (m *Metadata) Project(ctx context.Context) (string, error) {
	return m.client.ProjectIDWithContext(ctx)
}

func (m *Metadata) Zone(ctx context.Context) (string, error) { return m.client.ZoneWithContext(ctx) }

// ErrGuestAttributesDisabled means the VM lacks enable-guest-attributes=TRUE.
var ErrGuestAttributesDisabled = errors.New("guest attributes are disabled on this VM; its metadata needs " + cc.GuestAttributesKey + "=TRUE")

// SetGuestAttribute writes hypercompute/<key>.
func (m *Metadata) SetGuestAttribute(ctx context.Context, key, value string) error {
	return m.guestAttribute(ctx, http.MethodPut, key, value)
}

// DeleteGuestAttribute removes hypercompute/<key>.
func (m *Metadata) DeleteGuestAttribute(ctx context.Context, key string) error {
	return m.guestAttribute(ctx, http.MethodDelete, key, "")
}

func (m *Metadata) guestAttribute(ctx context.Context, method, key, value string) error {
	u := m.base + "instance/guest-attributes/" + cc.GuestAttributeNamespace + "/" + key
	req, err := http.NewRequestWithContext(ctx, method, u, strings.NewReader(value))
	if err != nil {
		return err
	}
	req.Header.Set("Metadata-Flavor", "Google")
	resp, err := m.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	switch {
	case resp.StatusCode == http.StatusOK:
		return nil
	case resp.StatusCode == http.StatusNotFound && method == http.MethodDelete:
		return nil
	case resp.StatusCode == http.StatusForbidden:
		return ErrGuestAttributesDisabled
	}
	return fmt.Errorf("%s %s: HTTP %d: %s", method, u, resp.StatusCode, strings.TrimSpace(string(body)))
}

// GuestAttributes reads back what this VM reported under hypercompute/.
func (m *Metadata) GuestAttributes(ctx context.Context) (map[string]string, error) {
	v, err := m.client.GetWithContext(ctx, "instance/guest-attributes/"+cc.GuestAttributeNamespace+"/?recursive=true")
	var nd metadata.NotDefinedError
	if errors.As(err, &nd) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	return decodeAttributes(v)
}

// InternalIP is the VM's primary internal address, where it serves the cluster's own ports.
func (m *Metadata) InternalIP(ctx context.Context) (string, error) {
	return m.client.InternalIPWithContext(ctx)
}
