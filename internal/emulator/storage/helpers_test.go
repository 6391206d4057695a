package storage_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

const project = "ml-prod-123456"

// call sends one request and returns the status, the decoded JSON body (nil when it is not JSON) and the raw body.
func call(t *testing.T, e *emulatortest.Env, method, path, contentType string, body any) (int, map[string]any, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
		if contentType == "" {
			contentType = "application/json"
		}
	}
	req, err := http.NewRequest(method, e.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return resp.StatusCode, m, raw
}

// must is call that fails the test unless the status is want.
func must(t *testing.T, e *emulatortest.Env, want int, method, path string, body any) map[string]any {
	t.Helper()
	code, m, raw := call(t, e, method, path, "", body)
	if code != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, code, want, raw)
	}
	return m
}

// field walks a decoded JSON body by keys.
func field(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

// wantError checks the JSON API's error body: code, the first error's reason, and a message containing msg.
func wantError(t *testing.T, m map[string]any, code int, reason, msg string) {
	t.Helper()
	if got := field(m, "error", "code"); got != float64(code) {
		t.Errorf("error.code = %v, want %d (body %v)", got, code, m)
	}
	errs, _ := field(m, "error", "errors").([]any)
	if len(errs) == 0 {
		t.Fatalf("error.errors is empty: %v", m)
	}
	first := errs[0].(map[string]any)
	if first["reason"] != reason || first["domain"] != "global" {
		t.Errorf("error.errors[0] = %v, want reason %q in domain global", first, reason)
	}
	if got, _ := field(m, "error", "message").(string); !strings.Contains(got, msg) {
		t.Errorf("error.message = %q, want it to contain %q", got, msg)
	}
}
