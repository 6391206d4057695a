package acctest

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// StateBucket is the bucket every blueprint's backend/local.hcl names: the local cloud's home of
// Terraform state, one prefix per environment.
const StateBucket = "hypercompute-tfstate"

// StateProject owns the state bucket, apart from the projects the blueprints deploy into, as a
// team keeps its state apart from what the state describes.
const StateProject = "hypercompute-state"

// LocalStateBackend makes the versioned state bucket in env's Cloud Storage (once; a second call
// finds it) and returns the -backend-config values that point a blueprint's gcs backend at it:
// backend/local.hcl (relative to the blueprint's directory), the emulator's endpoint and a token,
// which the local cloud never checks.
func LocalStateBackend(tb testing.TB, env *emulatortest.Env) []string {
	tb.Helper()
	resp, err := http.Post(env.URL+"/storage/v1/b?project="+StateProject, "application/json",
		strings.NewReader(`{"name": "`+StateBucket+`", "versioning": {"enabled": true}}`))
	if err != nil {
		tb.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK && !(resp.StatusCode == http.StatusConflict && strings.Contains(string(body), "already own it")) {
		tb.Fatalf("creating the state bucket %s: %s %s", StateBucket, resp.Status, body)
	}
	return []string{"backend/local.hcl", "storage_custom_endpoint=" + env.URL + "/storage/v1/", "access_token=local-cloud"}
}
