package gcp

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"google.golang.org/api/iterator"
)

func TestEmulatorHostWiring(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/compute/"):
			writeJSON(w, 200, map[string]any{"kind": "compute#networkList", "items": []any{map[string]any{"name": "default"}}})
		case strings.HasPrefix(r.URL.Path, "/lustre/"):
			writeJSON(w, 200, map[string]any{"name": "projects/p/locations/z/instances/l", "capacityGib": "18000"})
		default:
			writeJSON(w, 200, map[string]any{})
		}
	})
	c := emulatorClients(t, f)
	ctx := context.Background()

	it := c.Networks.List(ctx, &computepb.ListNetworksRequest{Project: "p"})
	nw, err := it.Next()
	if err != nil || nw.GetName() != "default" {
		t.Fatalf("list networks: %v %v", nw, err)
	}
	if _, err := it.Next(); err != iterator.Done {
		t.Fatalf("second item: %v", err)
	}
	if _, err := c.Filestore.GetInstance(ctx, &filestorepb.GetInstanceRequest{Name: "projects/p/locations/z/instances/home"}); err != nil {
		t.Fatalf("filestore: %v", err)
	}
	if _, err := c.ServiceNetworking.Services.Connections.List("services/servicenetworking.googleapis.com").
		Network("projects/123/global/networks/n").Context(ctx).Do(); err != nil {
		t.Fatalf("service networking: %v", err)
	}
	if inst, err := c.Lustre.GetInstance(ctx, "projects/p/locations/z/instances/l"); err != nil || inst.CapacityGib != 18000 {
		t.Fatalf("lustre: %v %v", inst, err)
	}

	want := []string{
		"GET /compute/v1/projects/p/global/networks",
		"GET /filestore/v1/projects/p/locations/z/instances/home",
		"GET /servicenetworking/v1/services/servicenetworking.googleapis.com/connections",
		"GET /lustre/v1/projects/p/locations/z/instances/l",
	}
	reqs := f.requests()
	if len(reqs) != len(want) {
		t.Fatalf("server saw %d requests: %+v", len(reqs), reqs)
	}
	for i, r := range reqs {
		if got := r.Method + " " + r.Path; got != want[i] {
			t.Errorf("request %d = %s, want %s", i, got, want[i])
		}
		if a := r.Header.Get("Authorization"); a != "" {
			t.Errorf("request %d sent Authorization %q to the emulator", i, a)
		}
	}
}

func TestAccessTokenAndEndpointOverrides(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		writeJSON(w, 200, map[string]any{"name": "n"})
	})
	cfg := Config{
		Project:     "p",
		AccessToken: "ya29.test-token",
		Endpoints: Endpoints{
			Compute:           f.URL + "/compute/v1/", // the versioned form users copy from the google provider
			Filestore:         f.URL + "/fs/",
			ServiceNetworking: f.URL + "/sn",
			Lustre:            f.URL + "/lu/v1/",
		},
		Retry: fastRetry, Poll: fastPoll,
	}
	c, err := NewClients(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.Networks.Get(ctx, &computepb.GetNetworkRequest{Project: "p", Network: "n"}); err != nil {
		t.Fatal(err)
	}
	_, _ = c.Filestore.GetInstance(ctx, &filestorepb.GetInstanceRequest{Name: "projects/p/locations/z/instances/i"})
	_, _ = c.ServiceNetworking.Operations.Get("operations/o").Context(ctx).Do()
	_, _ = c.Lustre.GetInstance(ctx, "projects/p/locations/z/instances/l")

	want := []string{
		"/compute/v1/projects/p/global/networks/n",
		"/fs/v1/projects/p/locations/z/instances/i",
		"/sn/v1/operations/o",
		"/lu/v1/projects/p/locations/z/instances/l",
	}
	reqs := f.requests()
	if len(reqs) != len(want) {
		t.Fatalf("server saw %d requests", len(reqs))
	}
	for i, r := range reqs {
		if r.Path != want[i] {
			t.Errorf("request %d path %s, want %s", i, r.Path, want[i])
		}
		if a := r.Header.Get("Authorization"); a != "Bearer ya29.test-token" {
			t.Errorf("request %d Authorization %q", i, a)
		}
	}
}

func TestCredentialsErrors(t *testing.T) {
	dir := t.TempDir()
	unknown := filepath.Join(dir, "creds.json")
	if err := os.WriteFile(unknown, []byte(`{"type":"mystery"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"missing file":   filepath.Join(dir, "nope.json"),
		"unknown type":   unknown,
		"no type":        `{"client_email":"x@y"}`,
		"malformed JSON": `{"type":`,
	}
	for name, creds := range cases {
		if _, err := NewClients(context.Background(), Config{Project: "p", Credentials: creds}); err == nil {
			t.Errorf("%s: NewClients accepted %q", name, creds)
		}
	}
}

func TestCredentialsTypeDetection(t *testing.T) {
	for doc, want := range map[string]string{
		`{"type":"service_account"}`:              "service_account",
		`{"type":"authorized_user"}`:              "authorized_user",
		`{"type":"external_account"}`:             "external_account",
		`{"type":"impersonated_service_account"}`: "impersonated_service_account",
	} {
		got, err := credentialsType([]byte(doc))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q %v", doc, got, err)
		}
	}
	js, err := credentialsJSON("  {\"type\":\"service_account\"}\n")
	if err != nil || !strings.HasPrefix(string(js), "{") {
		t.Errorf("inline JSON: %q %v", js, err)
	}
}

func TestEndpointDefaults(t *testing.T) {
	var c Config
	got := []string{c.computeEndpoint(), c.filestoreEndpoint(), c.serviceNetworkingEndpoint(), c.lustreEndpoint(), c.monitoringEndpoint()}
	want := []string{"https://compute.googleapis.com", "https://file.googleapis.com",
		"https://servicenetworking.googleapis.com/", "https://lustre.googleapis.com/", "https://monitoring.googleapis.com/"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("default endpoint %d = %s, want %s", i, got[i], want[i])
		}
	}
	e := Config{EmulatorHost: "127.0.0.1:8085", Endpoints: Endpoints{Compute: "https://ignored"}}
	got = []string{e.computeEndpoint(), e.filestoreEndpoint(), e.serviceNetworkingEndpoint(), e.lustreEndpoint(), e.monitoringEndpoint()}
	want = []string{"http://127.0.0.1:8085", "http://127.0.0.1:8085/filestore",
		"http://127.0.0.1:8085/servicenetworking/", "http://127.0.0.1:8085/lustre/", "http://127.0.0.1:8085/monitoring/"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("emulator endpoint %d = %s, want %s", i, got[i], want[i])
		}
	}
	if r := e.retryConfig(); r.MaxBackoff > time.Second || r.MaxAttempts != 8 {
		t.Errorf("emulator retry defaults %+v", r)
	}
	if p := c.pollConfig(); p.Initial != 50*time.Millisecond || p.Max != 10*time.Second || p.Multiplier != 2 {
		t.Errorf("poll defaults %+v", p)
	}
}

func TestServiceAccountCredentialsFile(t *testing.T) {
	// The whole credentials path: a service account key file whose token_uri is the fake,
	// a token exchange, then API calls carrying the token it handed out.
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: must(x509.MarshalPKCS8PrivateKey(key))})
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if r.URL.Path == "/token" {
			writeJSON(w, 200, map[string]any{"access_token": "sa-token", "token_type": "Bearer", "expires_in": 3600})
			return
		}
		writeJSON(w, 200, map[string]any{"name": "n"})
	})
	doc, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "p", "private_key_id": "k1", "private_key": string(pemKey),
		"client_email": "sa@p.iam.gserviceaccount.com", "client_id": "1", "token_uri": f.URL + "/token",
	})
	path := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := NewClients(context.Background(), Config{Project: "p", Credentials: path,
		Endpoints: Endpoints{Compute: f.URL}, Retry: fastRetry, Poll: fastPoll})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Networks.Get(context.Background(), &computepb.GetNetworkRequest{Project: "p", Network: "n"}); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	last := reqs[len(reqs)-1]
	if last.Path != "/compute/v1/projects/p/global/networks/n" || last.Header.Get("Authorization") != "Bearer sa-token" {
		t.Errorf("API call %s with Authorization %q", last.Path, last.Header.Get("Authorization"))
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
