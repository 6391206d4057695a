package emulator_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

const scopeURL = "https://www.googleapis.com/auth/"

// vmToken fetches the VM's default token as a process on the VM does; it returns the status and the token.
func vmToken(t *testing.T, host string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+host+"/computeMetadata/v1/instance/service-accounts/default/token", nil)
	req.Header.Set("Metadata-Flavor", "Google")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &tok)
	return resp.StatusCode, tok.AccessToken
}

// authed calls the emulator with an Authorization header and returns the status and the decoded error body.
func authed(t *testing.T, env *emulatortest.Env, auth, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, env.URL+path, strings.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &out)
	e, _ := out["error"].(map[string]any)
	return resp.StatusCode, e
}

// A VM's token may call what its scopes cover and nothing else: Compute reads with compute.readonly but not
// instances.delete (403 ACCESS_TOKEN_SCOPE_INSUFFICIENT, Google's whole body), Cloud Storage reads with
// devstorage.read_only but no uploads, no Filestore without cloud-platform; cloud-platform covers everything.
func TestScopesEnforcedOnMetadataTokens(t *testing.T) {
	env := emulatortest.Start(t)
	login := env.ScopedVM(t, "login", []string{scopeURL + "compute.readonly", scopeURL + "devstorage.read_only", scopeURL + "logging.write"})
	env.ScopedVM(t, "node", []string{scopeURL + "devstorage.read_write"})
	admin := env.ScopedVM(t, "admin", []string{scopeURL + "cloud-platform"})
	if code, e := authed(t, env, "", "POST", "/storage/v1/b?project=p", `{"name":"data"}`); code != 200 {
		t.Fatalf("bucket: %d %v", code, e)
	}

	code, tok := vmToken(t, login)
	if code != 200 || !strings.HasPrefix(tok, "ya29.") {
		t.Fatalf("login token: %d %q", code, tok)
	}
	bearer := "Bearer " + tok
	const node = "/compute/v1/projects/p/zones/us-central1-a/instances/node"
	if code, e := authed(t, env, bearer, "GET", node, ""); code != 200 {
		t.Errorf("instances.get with compute.readonly: %d %v", code, e)
	}
	code, e := authed(t, env, bearer, "DELETE", node, "")
	if code != 403 || e["message"] != "Request had insufficient authentication scopes." || e["status"] != "PERMISSION_DENIED" {
		t.Fatalf("instances.delete with compute.readonly: %d %v", code, e)
	}
	errs, _ := e["errors"].([]any)
	if len(errs) != 1 || errs[0].(map[string]any)["reason"] != "insufficientPermissions" {
		t.Errorf("errors[]: %v", e["errors"])
	}
	details, _ := e["details"].([]any)
	if len(details) != 1 {
		t.Fatalf("details: %v", e["details"])
	}
	d := details[0].(map[string]any)
	md, _ := d["metadata"].(map[string]any)
	if d["@type"] != "type.googleapis.com/google.rpc.ErrorInfo" || d["reason"] != "ACCESS_TOKEN_SCOPE_INSUFFICIENT" || d["domain"] != "googleapis.com" ||
		md["service"] != "compute.googleapis.com" || md["method"] != "compute.v1.InstancesService.Delete" {
		t.Errorf("ErrorInfo: %v", d)
	}
	if code, e := authed(t, env, "", "GET", node, ""); code != 200 {
		t.Errorf("the node after the refused delete: %d %v", code, e)
	}
	if code, e := authed(t, env, bearer, "GET", "/storage/v1/b/data/o", ""); code != 200 {
		t.Errorf("objects.list with devstorage.read_only: %d %v", code, e)
	}
	if code, e := authed(t, env, bearer, "POST", "/upload/storage/v1/b/data/o?uploadType=media&name=x", "x"); code != 403 {
		t.Errorf("objects.insert with devstorage.read_only: %d %v", code, e)
	}
	if code, e := authed(t, env, bearer, "GET", "/filestore/v1/projects/p/locations/us-central1-a/instances", ""); code != 403 || e["status"] != "PERMISSION_DENIED" {
		t.Errorf("Filestore without cloud-platform: %d %v", code, e)
	}

	_, adminTok := vmToken(t, admin)
	if code, e := authed(t, env, "Bearer "+adminTok, "POST", "/upload/storage/v1/b/data/o?uploadType=media&name=x", "x"); code != 200 {
		t.Errorf("objects.insert with cloud-platform: %d %v", code, e)
	}
	if code, e := authed(t, env, "Bearer "+adminTok, "DELETE", node, ""); code != 200 {
		t.Errorf("instances.delete with cloud-platform: %d %v", code, e)
	}
}

// The Go client sees the refusal as Google's: a 403 insufficientPermissions whose body names ACCESS_TOKEN_SCOPE_INSUFFICIENT.
func TestScopesRefusalThroughGoClient(t *testing.T) {
	env := emulatortest.Start(t)
	host := env.ScopedVM(t, "login", []string{scopeURL + "logging.write"})
	_, tok := vmToken(t, host)
	ctx := context.Background()
	inst, err := compute.NewInstancesRESTClient(ctx, option.WithEndpoint(env.URL+"/"),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok, TokenType: "Bearer"})))
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	_, err = inst.Delete(ctx, &computepb.DeleteInstanceRequest{Project: "p", Zone: "us-central1-a", Instance: "login"})
	// Compute's body carries errors[] beside the status details, which gax's strict decoding of details skips
	// (as it does Compute's own answers), so the client reads the legacy reason.
	var gae *googleapi.Error
	if !errors.As(err, &gae) || gae.Code != 403 || len(gae.Errors) != 1 || gae.Errors[0].Reason != "insufficientPermissions" ||
		!strings.Contains(gae.Body, "ACCESS_TOKEN_SCOPE_INSUFFICIENT") {
		t.Fatalf("delete with logging.write only: %v", err)
	}
}

// A VM without a service account has no token (404, as on Compute Engine); a token the emulator never minted
// (or one past its hour) is 401 UNAUTHENTICATED; no credentials, or the owner tools' placeholder token, act as
// the project's owner as before.
func TestScopesTokenlessAndUnknownTokens(t *testing.T) {
	env := emulatortest.Start(t)
	host := env.ScopedVM(t, "bare", nil)
	if code, _ := vmToken(t, host); code != 404 {
		t.Errorf("token of a VM without a service account: %d, want 404", code)
	}
	const vm = "/compute/v1/projects/p/zones/us-central1-a/instances/bare"
	code, e := authed(t, env, "Bearer ya29.hypercompute-emulator.0123456789abcdef", "GET", vm, "")
	if code != 401 || e["status"] != "UNAUTHENTICATED" || !strings.HasPrefix(e["message"].(string), "Request had invalid authentication credentials.") {
		t.Errorf("unknown token: %d %v", code, e)
	}
	for _, auth := range []string{"", "Bearer local-cloud"} {
		if code, e := authed(t, env, auth, "GET", vm, ""); code != 200 {
			t.Errorf("owner (%q): %d %v", auth, code, e)
		}
	}
}
