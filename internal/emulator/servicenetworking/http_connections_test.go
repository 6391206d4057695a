package servicenetworking_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest/psatest"
)

// These tests send the Service Networking REST reference's bodies over plain HTTP.

func call(t *testing.T, e *psatest.Env, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, e.URL+"/servicenetworking/v1/"+path, rd)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: not JSON: %s", method, path, raw)
	}
	return res.StatusCode, out
}

// waitOp polls the operation where the REST reference says it lives: v1/{name} ("operations/...").
func waitOp(t *testing.T, e *psatest.Env, name string) map[string]any {
	t.Helper()
	for range 200 {
		code, op := call(t, e, "GET", name, nil)
		if code != 200 || op["name"] != name {
			t.Fatalf("operations.get %s: %d %v", name, code, op)
		}
		if op["done"] == true {
			return op
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("operation %s never finished", name)
	return nil
}

func TestHTTPPatchForceCreatesConnection(t *testing.T) {
	e := psatest.Start(t)
	e.Network("vpc")
	e.Range("vpc", "psa-a", 20, "10.20.0.0")
	network := e.ConsumerNetwork("vpc")
	patch := svc + "/connections/-?updateMask=reservedPeeringRanges&force="

	// Without force, patching a connection that does not exist fails (NOT_FOUND).
	code, op := call(t, e, "PATCH", patch+"false", map[string]any{"network": network, "reservedPeeringRanges": []string{"psa-a"}})
	if code != 200 {
		t.Fatalf("patch: %d %v", code, op)
	}
	failed := waitOp(t, e, op["name"].(string))
	if st, _ := failed["error"].(map[string]any); st == nil || st["code"] != float64(5) {
		t.Fatalf("patch without force on a missing connection: %v", failed)
	}

	// With force=true Google creates it, as Terraform's google provider relies on.
	code, op = call(t, e, "PATCH", patch+"true", map[string]any{"network": network, "reservedPeeringRanges": []string{"psa-a"}})
	if code != 200 {
		t.Fatalf("patch force: %d %v", code, op)
	}
	done := waitOp(t, e, op["name"].(string))
	resp, _ := done["response"].(map[string]any)
	if done["error"] != nil || resp["@type"] != "type.googleapis.com/google.cloud.servicenetworking.v1.Connection" ||
		resp["peering"] != "servicenetworking-googleapis-com" || resp["network"] != network ||
		resp["service"] != "services/servicenetworking.googleapis.com" {
		t.Fatalf("patch force answer: %v", done)
	}
	code, list := call(t, e, "GET", svc+"/connections?"+url.Values{"network": {network}}.Encode(), nil)
	conns, _ := list["connections"].([]any)
	if code != 200 || len(conns) != 1 {
		t.Fatalf("connections after patch force: %d %v", code, list)
	}
	if c := conns[0].(map[string]any); c["reservedPeeringRanges"].([]any)[0] != "psa-a" {
		t.Errorf("connection %v", c)
	}

	code, body := call(t, e, "GET", "operations/operation-0-nope", nil)
	if errObj, _ := body["error"].(map[string]any); code != 404 || errObj["status"] != "NOT_FOUND" {
		t.Errorf("unknown operation: %d %v", code, body)
	}
}

// Service Networking's operations are proto3 JSON: a running one has no "done" key at all (the real create
// answers {"name":"operations/..."}), a finished one "done": true with its response.
func TestHTTPOperationOmitsDoneWhileRunning(t *testing.T) {
	e := psatest.Start(t)
	e.Network("vpc")
	e.Range("vpc", "psa-a", 20, "10.20.0.0")
	if err := e.Server.Faults.Apply(core.FaultSpec{Latency: map[string]core.Duration{
		"servicenetworking.services.connections.create": core.Duration(300 * time.Millisecond)}}); err != nil {
		t.Fatal(err)
	}
	code, op := call(t, e, "POST", svc+"/connections", map[string]any{"network": e.ConsumerNetwork("vpc"), "reservedPeeringRanges": []string{"psa-a"}})
	if v, present := op["done"]; code != 200 || present {
		t.Fatalf("create answer: %d %v, want no done key (found %v)", code, op, v)
	}
	_, running := call(t, e, "GET", op["name"].(string), nil)
	if _, present := running["done"]; present {
		t.Fatalf("running operation: %v", running)
	}
	if done := waitOp(t, e, op["name"].(string)); done["response"] == nil {
		t.Fatalf("finished operation: %v", done)
	}
}
