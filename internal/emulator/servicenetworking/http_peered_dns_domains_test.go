package servicenetworking_test

import (
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest/psatest"
)

// Peered DNS domains as the REST reference has them: create and delete are operations (PeeredDnsDomain /
// Empty responses), list answers {"peeredDnsDomains": [...]} or {} when there are none.
func TestHTTPPeeredDNSDomainsCreateListDelete(t *testing.T) {
	e := psatest.Start(t)
	e.Network("vpc")
	domains := svc + "/projects/" + core.ProjectNumber(psatest.Project) + "/global/networks/vpc/peeredDnsDomains"

	// Without a connection there is no peering to carry the DNS queries.
	code, op := call(t, e, "POST", domains, map[string]any{"name": "corp", "dnsSuffix": "corp.example.com."})
	if code != 200 {
		t.Fatalf("create: %d %v", code, op)
	}
	if st, _ := waitOp(t, e, op["name"].(string))["error"].(map[string]any); st == nil || st["code"] != float64(9) {
		t.Fatalf("create without a connection: %v, want FAILED_PRECONDITION", st)
	}

	e.Range("vpc", "psa-a", 20, "10.20.0.0")
	e.Connect("vpc", "psa-a")
	code, op = call(t, e, "POST", domains, map[string]any{"name": "corp", "dnsSuffix": "corp.example.com."})
	if _, present := op["done"]; code != 200 || op["name"] == nil {
		t.Fatalf("create: %d %v", code, op)
	} else if present && op["done"] != true {
		t.Errorf("a running operation carries done: %v", op["done"])
	}
	done := waitOp(t, e, op["name"].(string))
	resp, _ := done["response"].(map[string]any)
	meta, _ := done["metadata"].(map[string]any)
	if done["error"] != nil || resp["@type"] != "type.googleapis.com/google.cloud.servicenetworking.v1.PeeredDnsDomain" ||
		resp["name"] != "corp" || resp["dnsSuffix"] != "corp.example.com." ||
		meta["@type"] != "type.googleapis.com/google.cloud.servicenetworking.v1.PeeredDnsDomainMetadata" {
		t.Fatalf("create answer: %v", done)
	}
	// The same name again is ALREADY_EXISTS.
	_, op = call(t, e, "POST", domains, map[string]any{"name": "corp", "dnsSuffix": "other.example.com."})
	if st, _ := waitOp(t, e, op["name"].(string))["error"].(map[string]any); st == nil || st["code"] != float64(6) {
		t.Errorf("duplicate create: %v, want ALREADY_EXISTS", st)
	}
	// Bad input is a synchronous 400 naming the field.
	for body, field := range map[[2]string]string{
		{"Corp", "corp.example.com."}: "peeredDnsDomain.name",
		{"corp2", "corp.example.com"}: "peeredDnsDomain.dnsSuffix",
		{"corp3", ""}:                 "peeredDnsDomain.dnsSuffix",
	} {
		code, errBody := call(t, e, "POST", domains, map[string]any{"name": body[0], "dnsSuffix": body[1]})
		errObj, _ := errBody["error"].(map[string]any)
		if msg, _ := errObj["message"].(string); code != 400 || errObj["status"] != "INVALID_ARGUMENT" || !strings.Contains(msg, field) {
			t.Errorf("create %v: %d %v, want 400 naming %s", body, code, errBody, field)
		}
	}

	// The generated client reads the list (and the project ID form of the parent works as well).
	list, err := e.ServiceNet.Services.Projects.Global.Networks.PeeredDnsDomains.List(
		svc + "/projects/" + psatest.Project + "/global/networks/vpc").Context(e.Ctx).Do()
	if err != nil || len(list.PeeredDnsDomains) != 1 || list.PeeredDnsDomains[0].Name != "corp" || list.PeeredDnsDomains[0].DnsSuffix != "corp.example.com." {
		t.Fatalf("list: %v %+v", err, list)
	}

	code, op = call(t, e, "DELETE", domains+"/corp", nil)
	if code != 200 {
		t.Fatalf("delete: %d %v", code, op)
	}
	if done := waitOp(t, e, op["name"].(string)); done["error"] != nil || done["response"].(map[string]any)["@type"] != "type.googleapis.com/google.protobuf.Empty" {
		t.Fatalf("delete answer: %v", done)
	}
	if code, empty := call(t, e, "GET", domains, nil); code != 200 || len(empty) != 0 {
		t.Errorf("list after delete: %d %v, want {}", code, empty)
	}
	_, op = call(t, e, "DELETE", domains+"/corp", nil)
	if st, _ := waitOp(t, e, op["name"].(string))["error"].(map[string]any); st == nil || st["code"] != float64(5) {
		t.Errorf("deleting a missing domain: %v, want NOT_FOUND", st)
	}
}
