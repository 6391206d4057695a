package compute_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

func TestOperationRunsThenDoneAndWaitBlocks(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	ctx := context.Background()
	env.SetFaults(core.FaultSpec{Latency: map[string]core.Duration{"compute.networks.insert": core.Duration(150 * time.Millisecond)}})

	start := time.Now()
	op, err := c.networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: project, RequestId: proto.String("6f0c4c1e-8d7a-4c39-9a57-0d4c8d1f2a10"),
		NetworkResource: &computepb.Network{Name: proto.String("slow"), AutoCreateSubnetworks: proto.Bool(false)}})
	if err != nil {
		t.Fatal(err)
	}
	p := op.Proto()
	if p.GetStatus() != computepb.Operation_RUNNING || p.GetProgress() != 0 || p.GetInsertTime() == "" || p.GetStartTime() == "" || p.EndTime != nil ||
		p.GetClientOperationId() != "6f0c4c1e-8d7a-4c39-9a57-0d4c8d1f2a10" || p.GetTargetId() == 0 || p.GetKind() != "compute#operation" ||
		!strings.HasPrefix(p.GetName(), "operation-") || p.GetSelfLink() != "https://www.googleapis.com/compute/v1/projects/test-project/global/operations/"+p.GetName() {
		t.Fatalf("started operation = %v", p)
	}
	got, err := c.globalOps.Get(ctx, &computepb.GetGlobalOperationRequest{Project: project, Operation: p.GetName()})
	if err != nil || got.GetStatus() != computepb.Operation_RUNNING {
		t.Fatalf("operation right after insert = %v, %v", got, err)
	}
	// The network appears when its operation completes.
	_, err = c.networks.Get(ctx, &computepb.GetNetworkRequest{Project: project, Network: "slow"})
	wantHTTPError(t, err, 404, "notFound", "")

	done, err := c.globalOps.Wait(ctx, &computepb.WaitGlobalOperationRequest{Project: project, Operation: p.GetName()})
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < 140*time.Millisecond {
		t.Errorf("wait returned after %v, before the 150ms latency", elapsed)
	}
	if done.GetStatus() != computepb.Operation_DONE || done.GetProgress() != 100 || done.GetEndTime() == "" || done.Error != nil || done.HttpErrorStatusCode != nil {
		t.Errorf("waited operation = %v", done)
	}
	if _, err := c.networks.Get(ctx, &computepb.GetNetworkRequest{Project: project, Network: "slow"}); err != nil {
		t.Errorf("network missing after DONE: %v", err)
	}
	if n := env.CallCount("compute.globalOperations.wait"); n != 1 {
		t.Errorf("wait counted %d times", n)
	}

	// List and delete operations.
	it := c.globalOps.List(ctx, &computepb.ListGlobalOperationsRequest{Project: project})
	count := 0
	for {
		if _, err := it.Next(); err != nil {
			break
		}
		count++
	}
	if count != 1 {
		t.Errorf("listed %d operations, want 1", count)
	}
	if _, err := c.globalOps.Delete(ctx, &computepb.DeleteGlobalOperationRequest{Project: project, Operation: p.GetName()}); err != nil {
		t.Fatal(err)
	}
	_, err = c.globalOps.Get(ctx, &computepb.GetGlobalOperationRequest{Project: project, Operation: p.GetName()})
	wantHTTPError(t, err, 404, "notFound", "")
}

func TestWaitReturnsRunningOperationAtItsBound(t *testing.T) {
	env := emulatortest.Start(t, emulatortest.WithConfig(func(c *emulator.Config) { c.WaitTimeout = 100 * time.Millisecond }))
	c := newClients(t, env)
	ctx := context.Background()
	env.SetFaults(core.FaultSpec{Latency: map[string]core.Duration{"compute.firewalls.*": core.Duration(10 * time.Second)}})
	insertNetwork(t, c, "vpc")
	op, err := c.firewalls.Insert(ctx, &computepb.InsertFirewallRequest{Project: project, FirewallResource: &computepb.Firewall{
		Name: proto.String("fw"), Network: proto.String("global/networks/vpc"), Allowed: []*computepb.Allowed{{IPProtocol: proto.String("tcp")}}}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := c.globalOps.Wait(ctx, &computepb.WaitGlobalOperationRequest{Project: project, Operation: op.Name()})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetStatus() != computepb.Operation_RUNNING || time.Since(start) > 5*time.Second {
		t.Errorf("wait gave %v after %v", got.GetStatus(), time.Since(start))
	}
}

func TestFailedOperationLeavesNothingAndFailsClientWait(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	ctx := context.Background()
	env.SetFaults(core.FaultSpec{FailOperations: []core.FailOperations{{Method: "compute.networks.insert", Count: 1, Code: "QUOTA_EXCEEDED", Message: "Quota 'NETWORKS' exceeded.  Limit: 5.0 globally."}}})

	op, err := c.networks.Insert(ctx, &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{Name: proto.String("doomed"), AutoCreateSubnetworks: proto.Bool(false)}})
	if err != nil {
		t.Fatal(err)
	}
	err = op.Wait(ctx)
	if err == nil {
		t.Fatal("client Wait reported success for a failed operation")
	}
	code, _, _ := httpError(t, err)
	p := op.Proto()
	if code != 403 || p.GetHttpErrorStatusCode() != 403 || p.GetHttpErrorMessage() != "FORBIDDEN" ||
		len(p.GetError().GetErrors()) != 1 || p.GetError().GetErrors()[0].GetCode() != "QUOTA_EXCEEDED" ||
		p.GetError().GetErrors()[0].GetMessage() != "Quota 'NETWORKS' exceeded.  Limit: 5.0 globally." || p.GetStatus() != computepb.Operation_DONE {
		t.Errorf("failed operation = %v (client error code %d)", p, code)
	}
	_, err = c.networks.Get(ctx, &computepb.GetNetworkRequest{Project: project, Network: "doomed"})
	wantHTTPError(t, err, 404, "notFound", "")
	if inv := env.Inventory(); inv.Total != 0 {
		t.Errorf("inventory after a failed insert = %+v", inv.Kinds)
	}
	// The fault was for one operation only.
	insertNetwork(t, c, "doomed")
}

func TestRequestIDMakesRetriesIdempotent(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	ctx := context.Background()
	req := func() *computepb.InsertNetworkRequest {
		return &computepb.InsertNetworkRequest{Project: project, RequestId: proto.String("0b8e3b52-77a4-4e0e-a4a8-2a4cc6a9e001"),
			NetworkResource: &computepb.Network{Name: proto.String("once"), AutoCreateSubnetworks: proto.Bool(false)}}
	}
	op1, err := c.networks.Insert(ctx, req())
	wait(t, op1, err)
	op2, err := c.networks.Insert(ctx, req())
	if err != nil {
		t.Fatalf("retry with the same requestId failed: %v", err)
	}
	if op1.Name() != op2.Name() || op2.Proto().GetStatus() != computepb.Operation_DONE {
		t.Errorf("retry answered %s (%v), want the original %s", op2.Name(), op2.Proto().GetStatus(), op1.Name())
	}
	if got := env.Inventory().Count("compute.networks"); got != 1 {
		t.Errorf("%d networks after a retried insert", got)
	}
	if n := env.CallCount("compute.networks.insert"); n != 2 {
		t.Errorf("insert counted %d times, want 2", n)
	}
	// A new requestId is a new call: now the name is taken.
	r := req()
	r.RequestId = proto.String("0b8e3b52-77a4-4e0e-a4a8-2a4cc6a9e002")
	_, err = c.networks.Insert(ctx, r)
	wantHTTPError(t, err, 409, "alreadyExists", "")

	status, body := do(t, env, "POST", "/compute/v1/projects/test-project/global/networks?requestId=not-a-uuid", map[string]any{"name": "x", "autoCreateSubnetworks": false})
	if status != 400 {
		t.Errorf("bad requestId answered %d %v", status, body)
	}
}

func TestErrorBodies(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	insertNetwork(t, c, "vpc")
	insertSubnet(t, c, "vpc", "s", "10.0.0.0/24")

	cases := []struct {
		method, path string
		body         any
		code         float64
		reason, msg  string
	}{
		{"GET", "/compute/v1/projects/p1/global/networks/nope", nil, 404, "notFound", "The resource 'projects/p1/global/networks/nope' was not found"},
		{"POST", "/compute/v1/projects/test-project/global/networks", map[string]any{"name": "vpc", "autoCreateSubnetworks": false}, 409, "alreadyExists", "The resource 'projects/test-project/global/networks/vpc' already exists"},
		{"POST", "/compute/v1/projects/test-project/global/networks", map[string]any{"name": "-x", "autoCreateSubnetworks": false}, 400, "invalid",
			"Invalid value for field 'resource.name': '-x'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'"},
		{"PATCH", "/compute/v1/projects/test-project/regions/us-central1/subnetworks/s", map[string]any{"fingerprint": "AAAAAAAAAAA=", "privateIpGoogleAccess": true}, 412, "conditionNotMet",
			"Supplied fingerprint does not match current subnetwork fingerprint."},
		{"POST", "/compute/v1/projects/test-project/global/networks", map[string]any{"name": "y", "bogusField": 1}, 400, "parseError", ""},
		{"GET", "/compute/v1/projects/test-project/zones/nowhere-1a/machineTypes/n2-standard-8", nil, 404, "notFound", "The resource 'projects/test-project/zones/nowhere-1a' was not found"},
	}
	for _, tc := range cases {
		status, body := do(t, env, tc.method, tc.path, tc.body)
		code, msg, reason := errorBody(t, body)
		if status != int(tc.code) || code != tc.code || reason != tc.reason || (tc.msg != "" && msg != tc.msg) {
			t.Errorf("%s %s = %d %v, want %v %s %q", tc.method, tc.path, status, body, tc.code, tc.reason, tc.msg)
		}
	}
	status, body := do(t, env, "PATCH", "/compute/v1/projects/test-project/regions/us-central1/subnetworks/s", map[string]any{"fingerprint": "x"})
	e := body["error"].(map[string]any)["errors"].([]any)[0].(map[string]any)
	if status != 412 || e["location"] != "If-Match" || e["locationType"] != "header" {
		t.Errorf("412 item = %v", e)
	}
}

func TestListPaginationAndFilters(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	ctx := context.Background()
	insertNetwork(t, c, "vpc")
	for i := range 7 {
		op, err := c.firewalls.Insert(ctx, &computepb.InsertFirewallRequest{Project: project, FirewallResource: &computepb.Firewall{
			Name: proto.String(fmt.Sprintf("fw-%d", i)), Network: proto.String("global/networks/vpc"), Priority: proto.Int32(int32(100 * i)),
			Allowed: []*computepb.Allowed{{IPProtocol: proto.String("tcp")}}}})
		wait(t, op, err)
	}
	var names []string
	token := ""
	pages := 0
	for {
		path := "/compute/v1/projects/test-project/global/firewalls?maxResults=3"
		if token != "" {
			path += "&pageToken=" + token
		}
		status, body := do(t, env, "GET", path, nil)
		if status != 200 {
			t.Fatalf("list: %d %v", status, body)
		}
		pages++
		items, _ := body["items"].([]any)
		if len(items) > 3 {
			t.Fatalf("page of %d items", len(items))
		}
		for _, it := range items {
			names = append(names, it.(map[string]any)["name"].(string))
		}
		if body["kind"] != "compute#firewallList" {
			t.Errorf("list kind = %v", body["kind"])
		}
		token, _ = body["nextPageToken"].(string)
		if token == "" {
			break
		}
	}
	if pages != 3 || strings.Join(names, ",") != "fw-0,fw-1,fw-2,fw-3,fw-4,fw-5,fw-6" {
		t.Errorf("%d pages: %v", pages, names)
	}
	// The client's iterator follows the pages too.
	it := c.firewalls.List(ctx, &computepb.ListFirewallsRequest{Project: project, MaxResults: proto.Uint32(2)})
	n := 0
	for {
		if _, err := it.Next(); err != nil {
			break
		}
		n++
	}
	if n != 7 {
		t.Errorf("iterator saw %d firewalls", n)
	}

	filter := func(f string) []string {
		t.Helper()
		it := c.firewalls.List(ctx, &computepb.ListFirewallsRequest{Project: project, Filter: proto.String(f)})
		var out []string
		for {
			fw, err := it.Next()
			if err != nil {
				break
			}
			out = append(out, fw.GetName())
		}
		return out
	}
	for f, want := range map[string]string{
		"name = fw-3":                              "fw-3",
		`name = "fw-3"`:                            "fw-3",
		"name != fw-3":                             "fw-0,fw-1,fw-2,fw-4,fw-5,fw-6",
		"name eq fw-[12]":                          "fw-1,fw-2",
		"name ne 'fw-[0-4]'":                       "fw-5,fw-6",
		"(name = fw-*) AND (priority > 300)":       "fw-4,fw-5,fw-6",
		"(priority <= 100) OR (name = fw-6)":       "fw-0,fw-1,fw-6",
		"(name != fw-0) (priority < 300)":          "fw-1,fw-2",
		"allowed.IPProtocol = tcp AND name = fw-2": "fw-2",
	} {
		if got := strings.Join(filter(f), ","); got != want {
			t.Errorf("filter %q = %s, want %s", f, got, want)
		}
	}
	status, _ := do(t, env, "GET", "/compute/v1/projects/test-project/global/firewalls?filter=name%20%3D", nil)
	if status != 400 {
		t.Errorf("bad filter answered %d", status)
	}

	// Label filters, as instance lists use them.
	for i, env := range []string{"prod", "dev", "prod"} {
		op, err := c.addresses.Insert(ctx, &computepb.InsertGlobalAddressRequest{Project: project, AddressResource: &computepb.Address{
			Name: proto.String(fmt.Sprintf("ext-%d", i)), Labels: map[string]string{"env": env, "team": "ml"}}})
		wait(t, op, err)
	}
	labelFilter := func(f string) string {
		it := c.addresses.List(ctx, &computepb.ListGlobalAddressesRequest{Project: project, Filter: proto.String(f)})
		var out []string
		for {
			a, err := it.Next()
			if err != nil {
				break
			}
			out = append(out, a.GetName())
		}
		return strings.Join(out, ",")
	}
	for f, want := range map[string]string{
		"labels.env = prod":                          "ext-0,ext-2",
		"(labels.env = prod) AND (labels.team = ml)": "ext-0,ext-2",
		"(labels.env = prod) AND (name != ext-0)":    "ext-2",
		"labels.missing = x":                         "",
		"labels.env:*":                               "ext-0,ext-1,ext-2",
	} {
		if got := labelFilter(f); got != want {
			t.Errorf("filter %q = %s, want %s", f, got, want)
		}
	}
}

func TestErrorRateFault(t *testing.T) {
	env := emulatortest.Start(t)
	env.SetFaults(core.FaultSpec{ErrorRates: []core.ErrorRate{{Method: "compute.zones.list", Rate: 0.25, Code: 429}}})
	const calls = 400
	hits := 0
	for range calls {
		status, body := do(t, env, "GET", "/compute/v1/projects/test-project/zones", nil)
		switch status {
		case 200:
		case 429:
			hits++
			if _, _, reason := errorBody(t, body); reason != "rateLimitExceeded" {
				t.Fatalf("429 reason = %s", reason)
			}
		default:
			t.Fatalf("status %d", status)
		}
	}
	if hits < 60 || hits > 140 {
		t.Errorf("%d of %d calls failed at rate 0.25", hits, calls)
	}
	counted := env.Calls().Methods["compute.zones.list"]
	if counted.Count != 400 || counted.Errors != int64(hits) {
		t.Errorf("counters = %+v, want 400 calls and %d errors", counted, hits)
	}
	// Other methods are untouched; a glob with a 503 hits every matching call.
	env.SetFaults(core.FaultSpec{ErrorRates: []core.ErrorRate{{Method: "compute.regions.*", Rate: 1, Code: 503}}})
	if status, _ := do(t, env, "GET", "/compute/v1/projects/test-project/zones/us-central1-a", nil); status != 200 {
		t.Errorf("zones.get answered %d", status)
	}
	status, body := do(t, env, "GET", "/compute/v1/projects/test-project/regions/us-central1", nil)
	if _, _, reason := errorBody(t, body); status != 503 || reason != "backendError" {
		t.Errorf("regions.get answered %d %s", status, reason)
	}
	env.ClearFaults()
	if status, _ := do(t, env, "GET", "/compute/v1/projects/test-project/regions/us-central1", nil); status != 200 {
		t.Errorf("after clearing faults: %d", status)
	}
}

func TestStockoutLookup(t *testing.T) {
	env := emulatortest.Start(t)
	env.SetFaults(core.FaultSpec{Stockouts: []core.Stockout{{Zone: "us-central1-a", MachineType: "a3-*"}, {Zone: "us-east4-b"}}})
	f := env.Server.Faults
	if !f.Stockout("us-central1-a", "a3-highgpu-8g") || f.Stockout("us-central1-a", "n2-standard-8") || !f.Stockout("us-east4-b", "n2-standard-8") || f.Stockout("us-central1-b", "a3-highgpu-8g") {
		t.Error("stockout lookup does not follow the configured zones and machine types")
	}
}
