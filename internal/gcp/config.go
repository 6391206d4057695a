package gcp

import (
	"net/http"
	"strings"
	"time"
)

// EmulatorHostEnv names the environment variable that points the provider at the local
// cloud (host:port). NewClients does not read it; the provider copies it into Config.
const EmulatorHostEnv = "HYPERCOMPUTE_EMULATOR_HOST"

// CloudPlatformScope is the OAuth scope every client authenticates with.
const CloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// DefaultUserAgent is sent when Config.UserAgent is empty.
const DefaultUserAgent = "terraform-provider-hypercompute"

// Endpoints overrides the base URL of each API. Both the bare host form
// ("https://compute.googleapis.com") and the versioned form
// ("https://compute.googleapis.com/compute/v1/") are accepted.
type Endpoints struct {
	Compute           string
	Filestore         string
	Lustre            string
	ServiceNetworking string
	// Monitoring serves Cloud Monitoring v3 and the Dashboards API v1 (one host, "v3/..." and "v1/...").
	Monitoring string
}

// RetryConfig bounds the transport's retries. Zero fields take defaults, which are
// shorter when Config.EmulatorHost is set so tests against the local cloud stay fast.
type RetryConfig struct {
	// MaxAttempts is the number of tries of one request, the first included (default 8).
	MaxAttempts int
	// InitialBackoff is the cap of the first sleep (default 1s; 20ms with an emulator).
	InitialBackoff time.Duration
	// MaxBackoff caps any one sleep (default 30s; 500ms with an emulator).
	MaxBackoff time.Duration
	// MaxElapsed is the time budget of one request across all tries (default 5m; 1m
	// with an emulator). A Retry-After beyond the budget ends the retries.
	MaxElapsed time.Duration
	// Disabled turns retries off (each request is tried once).
	Disabled bool
}

// PollConfig sets how long-running operations are polled: Initial, multiplied by
// Multiplier after each poll, up to Max. Zero fields take defaults: 50ms, ×2, and a
// Max of 10s against Google Cloud or 1s against an emulator.
type PollConfig struct {
	Initial    time.Duration
	Max        time.Duration
	Multiplier float64
}

// Config says which project and location to work in and how to reach and authenticate
// to the APIs.
type Config struct {
	Project string
	Region  string
	Zone    string

	// Credentials is a credentials JSON document or the path of a file holding one
	// (service_account, authorized_user, impersonated_service_account or external_account).
	Credentials string
	// AccessToken is a ready OAuth2 access token; it wins over Credentials.
	AccessToken string
	// ImpersonateServiceAccount, when set, makes every call as this service account,
	// using the credentials above (or ADC) to obtain its tokens.
	ImpersonateServiceAccount string

	Endpoints Endpoints
	// EmulatorHost (host:port) sends every API to the local cloud, over plain HTTP and
	// without authentication. It wins over Endpoints and all credentials.
	EmulatorHost string
	// MetadataToken authenticates with the VM's metadata-server token even against the emulator: the agent
	// on a local-cloud VM, whose calls the local cloud then checks against the VM's scopes as Google does.
	MetadataToken bool
	UserAgent     string

	Retry RetryConfig
	Poll  PollConfig

	// BaseTransport replaces the network transport under the retry and auth layers;
	// nil means a clone of http.DefaultTransport.
	BaseTransport http.RoundTripper
}

func (c Config) emulated() bool { return c.EmulatorHost != "" }

func (c Config) emulatorBase() string {
	h := strings.TrimSuffix(c.EmulatorHost, "/")
	if strings.HasPrefix(h, "http://") || strings.HasPrefix(h, "https://") {
		return h
	}
	return "http://" + h
}

func (c Config) userAgent() string {
	if c.UserAgent == "" {
		return DefaultUserAgent
	}
	return c.UserAgent
}

// retryConfig fills the zero fields of c.Retry.
func (c Config) retryConfig() RetryConfig {
	r := c.Retry
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = 8
	}
	if r.Disabled {
		r.MaxAttempts = 1
	}
	fast := c.emulated()
	if r.InitialBackoff <= 0 {
		r.InitialBackoff = pick(fast, 20*time.Millisecond, time.Second)
	}
	if r.MaxBackoff <= 0 {
		r.MaxBackoff = pick(fast, 500*time.Millisecond, 30*time.Second)
	}
	if r.MaxBackoff < r.InitialBackoff {
		r.MaxBackoff = r.InitialBackoff
	}
	if r.MaxElapsed <= 0 {
		r.MaxElapsed = pick(fast, time.Minute, 5*time.Minute)
	}
	return r
}

// pollConfig fills the zero fields of c.Poll.
func (c Config) pollConfig() PollConfig {
	p := c.Poll
	if p.Initial <= 0 {
		p.Initial = 50 * time.Millisecond
	}
	if p.Max <= 0 {
		p.Max = pick(c.emulated(), time.Second, 10*time.Second)
	}
	if p.Max < p.Initial {
		p.Max = p.Initial
	}
	if p.Multiplier < 1 {
		p.Multiplier = 2
	}
	return p
}

func pick[T any](cond bool, a, b T) T {
	if cond {
		return a
	}
	return b
}

// The gapic REST clients (Compute, Filestore) append "/compute/v1/..." or "/v1/..." to
// their endpoint, so it must be a bare base without a trailing slash. The discovery
// client (Service Networking) and the Lustre client resolve "v1/..." against it, so
// theirs must end in a slash.

func (c Config) computeEndpoint() string {
	if c.emulated() {
		return c.emulatorBase()
	}
	return bareEndpoint(c.Endpoints.Compute, "https://compute.googleapis.com", "/compute/v1", "/compute/beta")
}

func (c Config) filestoreEndpoint() string {
	if c.emulated() {
		return c.emulatorBase() + "/filestore"
	}
	return bareEndpoint(c.Endpoints.Filestore, "https://file.googleapis.com", "/v1")
}

func (c Config) serviceNetworkingEndpoint() string {
	if c.emulated() {
		return c.emulatorBase() + "/servicenetworking/"
	}
	return bareEndpoint(c.Endpoints.ServiceNetworking, "https://servicenetworking.googleapis.com", "/v1") + "/"
}

func (c Config) lustreEndpoint() string {
	if c.emulated() {
		return c.emulatorBase() + "/lustre/"
	}
	return bareEndpoint(c.Endpoints.Lustre, "https://lustre.googleapis.com", "/v1") + "/"
}

func bareEndpoint(override, def string, versionSuffixes ...string) string {
	if override == "" {
		return def
	}
	e := strings.TrimRight(override, "/")
	for _, s := range versionSuffixes {
		e = strings.TrimSuffix(e, s)
	}
	return e
}

// monitoringEndpoint is the base both discovery clients resolve "v3/..." (Cloud Monitoring) and
// "v1/..." (dashboards) against: the emulator serves them under /monitoring/.
func (c Config) monitoringEndpoint() string {
	if c.emulated() {
		return c.emulatorBase() + "/monitoring/"
	}
	return bareEndpoint(c.Endpoints.Monitoring, "https://monitoring.googleapis.com", "/v3", "/v1") + "/"
}
