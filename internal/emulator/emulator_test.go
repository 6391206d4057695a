package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

func call(t *testing.T, env *emulatortest.Env, method, path string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, env.URL+path, rd)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, raw)
		}
	}
	return resp.StatusCode
}

func networksClient(t *testing.T, env *emulatortest.Env) *compute.NetworksClient {
	c, err := compute.NewNetworksRESTClient(context.Background(), env.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func insertNetwork(t *testing.T, c *compute.NetworksClient, name string) {
	t.Helper()
	op, err := c.Insert(context.Background(), &computepb.InsertNetworkRequest{Project: "p", NetworkResource: &computepb.Network{Name: proto.String(name), AutoCreateSubnetworks: proto.Bool(false)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestAdminCallsInventoryReset(t *testing.T) {
	env := emulatortest.Start(t)
	c := networksClient(t, env)
	insertNetwork(t, c, "a")
	insertNetwork(t, c, "b")
	if _, err := c.Get(context.Background(), &computepb.GetNetworkRequest{Project: "p", Network: "a"}); err != nil {
		t.Fatal(err)
	}

	var calls struct {
		Total, Read, Mutating int
		Methods               map[string]struct {
			Count    int
			Mutating bool
		}
	}
	if code := call(t, env, "GET", "/emulator/v1/calls", nil, &calls); code != 200 {
		t.Fatalf("calls: %d", code)
	}
	// Two inserts, two client polls (globalOperations.get) and one get; admin calls are not counted.
	if calls.Methods["compute.networks.insert"].Count != 2 || !calls.Methods["compute.networks.insert"].Mutating ||
		calls.Methods["compute.networks.get"].Count != 1 || calls.Methods["compute.globalOperations.get"].Count != 2 ||
		calls.Mutating != 2 || calls.Read != 3 || calls.Total != 5 {
		t.Errorf("calls = %+v", calls)
	}
	if code := call(t, env, "POST", "/emulator/v1/calls:reset", nil, &calls); code != 200 || calls.Total != 0 {
		t.Errorf("calls:reset = %d %+v", code, calls)
	}

	var inv emulator.Inventory
	call(t, env, "GET", "/emulator/v1/inventory", nil, &inv)
	if inv.Total != 2 || strings.Join(inv.Names("compute.networks"), ",") != "a,b" ||
		inv.Kinds["compute.networks"][0].SelfLink != "https://www.googleapis.com/compute/v1/projects/p/global/networks/a" ||
		inv.Kinds["compute.networks"][0].Key != "projects/p/global/networks/a" {
		t.Errorf("inventory = %+v", inv)
	}
	call(t, env, "GET", "/emulator/v1/inventory?all=true", nil, &inv)
	if inv.Count("compute.operations") != 2 {
		t.Errorf("inventory with operations holds %d operations", inv.Count("compute.operations"))
	}

	call(t, env, "POST", "/emulator/v1/faults", map[string]any{"latency": map[string]string{"compute.*": "1s"}}, nil)
	if code := call(t, env, "POST", "/emulator/v1/reset", nil, nil); code != 200 {
		t.Fatalf("reset: %d", code)
	}
	call(t, env, "GET", "/emulator/v1/inventory?all=true", nil, &inv)
	var faults map[string]any
	call(t, env, "GET", "/emulator/v1/faults", nil, &faults)
	if inv.Total != 0 || len(faults) != 0 || env.Calls().Total != 0 {
		t.Errorf("after reset: inventory %+v, faults %v, calls %+v", inv, faults, env.Calls())
	}
	insertNetwork(t, c, "a") // usable again, without the latency fault
}

func TestAdminFaultsOverHTTP(t *testing.T) {
	env := emulatortest.Start(t)
	c := networksClient(t, env)
	spec := map[string]any{
		"seed":           7,
		"latency":        map[string]any{"compute.networks.insert": "250ms", "compute.firewalls.*": 100},
		"errorRates":     []any{map[string]any{"method": "compute.zones.*", "rate": 0.5, "code": 503}},
		"failOperations": []any{map[string]any{"method": "compute.networks.delete", "count": 2, "code": "INTERNAL_ERROR"}},
		"stockouts":      []any{map[string]any{"zone": "us-central1-a", "machineType": "a3-highgpu-8g"}},
	}
	var got map[string]any
	if code := call(t, env, "POST", "/emulator/v1/faults", spec, &got); code != 200 {
		t.Fatalf("POST faults: %d %v", code, got)
	}
	if got["latency"].(map[string]any)["compute.firewalls.*"] != "100ms" || len(got["failOperations"].([]any)) != 1 {
		t.Errorf("faults answer = %v", got)
	}
	if !env.Server.Faults.Stockout("us-central1-a", "a3-highgpu-8g") {
		t.Error("stockout not applied")
	}
	for _, bad := range []any{
		map[string]any{"errorRates": []any{map[string]any{"method": "compute.*", "rate": 2}}},
		map[string]any{"latency": map[string]any{"compute.*": "soon"}},
		map[string]any{"unknownField": true},
	} {
		if code := call(t, env, "POST", "/emulator/v1/faults", bad, nil); code != 400 {
			t.Errorf("bad fault spec %v answered %d", bad, code)
		}
	}

	start := time.Now()
	insertNetwork(t, c, "slow") // the client's Wait polls after 1s; the operation must not be DONE before 250ms
	if el := time.Since(start); el < 250*time.Millisecond {
		t.Errorf("insert with a 250ms latency finished in %v", el)
	}
	op, err := c.Delete(context.Background(), &computepb.DeleteNetworkRequest{Project: "p", Network: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(context.Background()); err == nil {
		t.Error("delete succeeded despite failOperations")
	}
	call(t, env, "GET", "/emulator/v1/faults", nil, &got)
	if fo := got["failOperations"].([]any); fo[0].(map[string]any)["count"].(float64) != 1 {
		t.Errorf("remaining failOperations = %v", fo)
	}
	call(t, env, "DELETE", "/emulator/v1/faults", nil, nil)
	if env.Server.Faults.Stockout("us-central1-a", "a3-highgpu-8g") {
		t.Error("DELETE faults left the stockout")
	}
}

func TestAdminQuotasAndReservations(t *testing.T) {
	env := emulatortest.Start(t)
	var ql emulator.QuotaList
	code := call(t, env, "POST", "/emulator/v1/quotas", map[string]any{"limits": []any{map[string]any{"region": "us-central1", "metric": "NVIDIA_H100_GPUS", "limit": 16}}}, &ql)
	if code != 200 || len(ql.Quotas) != 1 || ql.Quotas[0].Limit != 16 {
		t.Fatalf("POST quotas = %d %+v", code, ql)
	}
	q := env.Server.Quotas
	if err := q.Charge("us-central1", "NVIDIA_H100_GPUS", 8); err != nil {
		t.Fatal(err)
	}
	if err := q.Charge("us-central1", "NVIDIA_H100_GPUS", 16); err == nil || !strings.Contains(err.Error(), "QUOTA_EXCEEDED") ||
		!strings.Contains(err.Error(), "Quota NVIDIA_H100_GPUS exceeded. Limit: 16.0 in region us-central1.") {
		t.Errorf("over-limit charge: %v", err)
	}
	q.Release("us-central1", "NVIDIA_H100_GPUS", 8)
	call(t, env, "GET", "/emulator/v1/quotas?region=us-central1", nil, &ql)
	if len(ql.Quotas) != 1 || ql.Quotas[0].Usage != 0 {
		t.Errorf("quotas after release = %+v", ql)
	}
	if code := call(t, env, "POST", "/emulator/v1/quotas", map[string]any{"limits": []any{map[string]any{"region": "mars1", "metric": "CPUS", "limit": 1}}}, nil); code != 400 {
		t.Errorf("quota for an unknown region answered %d", code)
	}

	var res map[string]any
	code = call(t, env, "POST", "/emulator/v1/reservations", map[string]any{"project": "p", "zone": "us-central1-a", "reservation": map[string]any{
		"name": "h100-block", "specificReservation": map[string]any{"count": "4", "instanceProperties": map[string]any{"machineType": "a3-highgpu-8g"}},
	}}, &res)
	if code != 200 || res["selfLink"] != "https://www.googleapis.com/compute/v1/projects/p/zones/us-central1-a/reservations/h100-block" || res["status"] != "READY" ||
		res["specificReservation"].(map[string]any)["inUseCount"] != "0" {
		t.Fatalf("seeded reservation = %d %v", code, res)
	}
	if !env.Store().Exists("compute.reservations", "projects/p/zones/us-central1-a/reservations/h100-block") {
		t.Error("reservation not stored under compute.reservations")
	}
	if code := call(t, env, "POST", "/emulator/v1/reservations", map[string]any{"project": "p", "zone": "nowhere", "reservation": map[string]any{"name": "x"}}, nil); code != 400 {
		t.Errorf("reservation in an unknown zone answered %d", code)
	}
}

func TestStateFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	env := emulatortest.Start(t, emulatortest.WithStateFile(path))
	c := networksClient(t, env)
	insertNetwork(t, c, "kept")
	env.SetQuota("us-central1", "CPUS", 100)
	// A pending operation completes before the state is saved at exit.
	env.SetFaults(emulatortestLatency("compute.networks.insert", time.Hour))
	op, err := c.Insert(context.Background(), &computepb.InsertNetworkRequest{Project: "p", RequestId: proto.String("9a7c7c50-7c4c-4c6a-8d36-9e2f2d8a0b11"),
		NetworkResource: &computepb.Network{Name: proto.String("pending"), AutoCreateSubnetworks: proto.Bool(false)}})
	if err != nil {
		t.Fatal(err)
	}
	env.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("state file not written: %v", err)
	}

	env2 := emulatortest.Start(t, emulatortest.WithStateFile(path))
	c2 := networksClient(t, env2)
	for _, name := range []string{"kept", "pending"} {
		if _, err := c2.Get(context.Background(), &computepb.GetNetworkRequest{Project: "p", Network: name}); err != nil {
			t.Errorf("network %s lost across restart: %v", name, err)
		}
	}
	if q := env2.Server.Quotas.Get("us-central1", "CPUS"); q.Limit != 100 {
		t.Errorf("quota limit after restart = %v", q.Limit)
	}
	// requestId idempotency survives the restart.
	op2, err := c2.Insert(context.Background(), &computepb.InsertNetworkRequest{Project: "p", RequestId: proto.String("9a7c7c50-7c4c-4c6a-8d36-9e2f2d8a0b11"),
		NetworkResource: &computepb.Network{Name: proto.String("pending"), AutoCreateSubnetworks: proto.Bool(false)}})
	if err != nil || op2.Name() != op.Name() || op2.Proto().GetStatus() != computepb.Operation_DONE {
		t.Errorf("retried insert after restart = %v, %v", op2, err)
	}

	// Changes are saved shortly after they happen, not only at exit.
	insertNetwork(t, c2, "later")
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), "projects/p/global/networks/later") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("state file not updated after a change")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestUnknownRouteAnswersInAPIStyle(t *testing.T) {
	env := emulatortest.Start(t)
	var body map[string]any
	if code := call(t, env, "GET", "/compute/v1/projects/p/global/nothingHere", nil, &body); code != 404 {
		t.Errorf("unknown compute route: %d", code)
	}
	if _, ok := body["error"].(map[string]any)["errors"]; !ok {
		t.Errorf("compute-style body expected: %v", body)
	}
	body = nil
	call(t, env, "GET", "/filestore/v1/projects/p/locations/l/instances/x", nil, &body)
	if body["error"].(map[string]any)["status"] != "NOT_FOUND" {
		t.Errorf("google-style body expected: %v", body)
	}
	var health map[string]any
	if code := call(t, env, "GET", "/emulator/v1/healthz", nil, &health); code != 200 || health["status"] != "ok" {
		t.Errorf("healthz = %d %v", code, health)
	}
}
