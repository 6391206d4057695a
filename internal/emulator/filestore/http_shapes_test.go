package filestore_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest/psatest"
)

func httpCall(t *testing.T, e *psatest.Env, method, path string, body any) (int, map[string]any, string) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, e.URL+"/filestore/v1/"+path, rd)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return res.StatusCode, m, string(raw)
}

// What strict clients compare in Filestore's answers: capacityGb is an int64, so a JSON string; the network is
// the short name for a network of the instance's project, however the request named it; v1 has no
// nfsExportOptions.securityFlavors (a v1beta1 field), so v1 refuses it as an unknown name.
func TestHTTPInstanceShapes(t *testing.T) {
	e := psatest.Start(t)
	e.PSA("vpc")
	instance := map[string]any{
		"tier": "ZONAL",
		"fileShares": []any{map[string]any{"name": "home", "capacityGb": 1024,
			"nfsExportOptions": []any{map[string]any{"ipRanges": []string{"10.0.0.0/8"}, "accessMode": "READ_WRITE"}}}},
		"networks": []any{map[string]any{"network": "projects/" + core.ProjectNumber(psatest.Project) + "/global/networks/vpc",
			"connectMode": "PRIVATE_SERVICE_ACCESS"}},
	}
	code, op, raw := httpCall(t, e, "POST", parent+"/instances?instanceId=home1", instance)
	if code != 200 {
		t.Fatalf("create: %d %s", code, raw)
	}
	var done map[string]any
	for range 200 {
		_, done, raw = httpCall(t, e, "GET", op["name"].(string), nil)
		if done["done"] == true {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	check := func(where string, inst map[string]any) {
		t.Helper()
		share := inst["fileShares"].([]any)[0].(map[string]any)
		if share["capacityGb"] != "1024" {
			t.Errorf("%s: capacityGb = %#v, want the string \"1024\"", where, share["capacityGb"])
		}
		if nw := inst["networks"].([]any)[0].(map[string]any); nw["network"] != "vpc" {
			t.Errorf("%s: network = %v, want the short name", where, nw["network"])
		}
	}
	resp, _ := done["response"].(map[string]any)
	if resp == nil {
		t.Fatalf("create operation: %s", raw)
	}
	check("operation response", resp)
	_, got, _ := httpCall(t, e, "GET", instName("home1"), nil)
	check("get", got)
	_, list, _ := httpCall(t, e, "GET", parent+"/instances", nil)
	check("list", list["instances"].([]any)[0].(map[string]any))

	instance["fileShares"].([]any)[0].(map[string]any)["nfsExportOptions"] = []any{map[string]any{
		"ipRanges": []string{"10.0.0.0/8"}, "securityFlavors": []string{"AUTH_SYS"}}}
	code, body, raw := httpCall(t, e, "POST", parent+"/instances?instanceId=home2", instance)
	errObj, _ := body["error"].(map[string]any)
	if msg, _ := errObj["message"].(string); code != 400 || errObj["status"] != "INVALID_ARGUMENT" || !strings.Contains(msg, "securityFlavors") {
		t.Errorf("v1 create with securityFlavors: %d %s, want 400 naming the unknown field", code, raw)
	}
}
