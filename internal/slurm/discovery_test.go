package slurm

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestDiscoveryFromRecordedV0038Spec(t *testing.T) {
	f := newFakeRestd(t)
	f.on("GET", "/openapi/v3", 200, "v0.0.38/openapi_v3.json")
	cl := NewClient(Config{BaseURL: f.srv.URL})
	v, err := cl.APIVersion(context.Background())
	if err != nil || v != "v0.0.38" {
		t.Fatalf("APIVersion = %q, %v", v, err)
	}
	offered, _ := cl.OfferedVersions(context.Background())
	if !slices.Equal(offered, []string{"v0.0.38", "v0.0.37"}) {
		t.Errorf("offered = %v", offered)
	}
	// Discovery happens once per client.
	cl.APIVersion(context.Background())
	if n := len(f.requests()); n != 1 {
		t.Errorf("%d requests for two APIVersion calls, want 1", n)
	}
}

func TestDiscoverySkipsVersionsWithoutAdapter(t *testing.T) {
	f := newFakeRestd(t)
	f.onBody("GET", "/openapi/v3", 200, `{"paths":{"/slurm/v0.0.43/ping/":{},"/slurm/v0.0.42/ping/":{},
		"/slurm/v0.0.9/ping/":{},"/slurmdb/v0.0.44/jobs/":{}}}`)
	v, err := NewClient(Config{BaseURL: f.srv.URL}).APIVersion(context.Background())
	if err != nil || v != "v0.0.42" {
		t.Errorf("APIVersion = %q, %v; want v0.0.42", v, err)
	}
}

func TestDiscoveryNoCommonVersion(t *testing.T) {
	f := newFakeRestd(t)
	f.onBody("GET", "/openapi/v3", 200, `{"paths":{"/slurm/v0.0.36/ping":{},"/slurm/v0.0.37/ping":{}}}`)
	_, err := NewClient(Config{BaseURL: f.srv.URL}).APIVersion(context.Background())
	if err == nil || !strings.Contains(err.Error(), "v0.0.37") || !strings.Contains(err.Error(), "v0.0.38") {
		t.Errorf("err = %v, want one naming offered and supported versions", err)
	}
}

func TestDiscoveryFallsBackToOpenAPIThenPing(t *testing.T) {
	f := newFakeRestd(t)
	f.on("GET", "/openapi", 200, "v0.0.41/openapi_v3.json")
	v, err := NewClient(Config{BaseURL: f.srv.URL}).APIVersion(context.Background())
	if err != nil || v != "v0.0.41" {
		t.Errorf("via /openapi: %q, %v", v, err)
	}

	f = newFakeRestd(t)
	f.on("GET", "/slurm/v0.0.40/ping", 200, "v0.0.40/ping.json")
	cl := NewClient(Config{BaseURL: f.srv.URL})
	v, err = cl.APIVersion(context.Background())
	if err != nil || v != "v0.0.40" {
		t.Fatalf("via probing: %q, %v", v, err)
	}
	var probed []string
	for _, r := range f.requests() {
		probed = append(probed, r.Path)
	}
	want := []string{"/openapi/v3", "/openapi", "/slurm/v0.0.42/ping", "/slurm/v0.0.41/ping", "/slurm/v0.0.40/ping"}
	if !slices.Equal(probed, want) {
		t.Errorf("requests %v, want %v (newest first)", probed, want)
	}
}

func TestDiscoveryNothingAnswers(t *testing.T) {
	f := newFakeRestd(t)
	cl := NewClient(Config{BaseURL: f.srv.URL})
	_, err := cl.APIVersion(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no supported REST API version") {
		t.Fatalf("err = %v", err)
	}
	// A failed discovery is retried: the server may have been starting.
	f.on("GET", "/openapi/v3", 200, "v0.0.41/openapi_v3.json")
	if v, err := cl.APIVersion(context.Background()); err != nil || v != "v0.0.41" {
		t.Errorf("second try: %q, %v", v, err)
	}
}

func TestDiscoveryUnauthorized(t *testing.T) {
	f := newFakeRestd(t)
	f.token = "right"
	f.on("GET", "/openapi/v3", 200, "v0.0.41/openapi_v3.json")
	_, err := NewClient(Config{BaseURL: f.srv.URL}).APIVersion(context.Background())
	if !IsUnauthorized(err) || !strings.Contains(err.Error(), "Authentication failure") {
		t.Errorf("err = %v, want unauthorized with slurmrestd's text", err)
	}
	v, err := NewClient(Config{BaseURL: f.srv.URL, User: "root", Token: staticToken("right")}).APIVersion(context.Background())
	if err != nil || v != "v0.0.41" {
		t.Errorf("with token: %q, %v", v, err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{BaseURL: "ftp://host"},
		{BaseURL: "http://"},
		{BaseURL: "unix://"},
		{BaseURL: "http://h:1", Version: "v0.0.99"},
		{BaseURL: "::bad"},
	} {
		if _, err := NewClient(cfg).APIVersion(context.Background()); err == nil {
			t.Errorf("NewClient(%+v) worked", cfg)
		}
	}
}

func TestSupportedVersions(t *testing.T) {
	want := []string{"v0.0.42", "v0.0.41", "v0.0.40", "v0.0.39", "v0.0.38"}
	if got := SupportedVersions(); !slices.Equal(got, want) {
		t.Errorf("SupportedVersions = %v, want %v", got, want)
	}
}
