package gcp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"
)

// opServer answers inserts with a RUNNING operation and operations.wait calls with
// RUNNING (an early answer) until the n-th wait, then with final.
func opServer(t *testing.T, scope string, earlyAnswers int32, final map[string]any) (*fakeServer, *atomic.Int32) {
	var waits atomic.Int32
	running := map[string]any{"kind": "compute#operation", "name": "operation-1", "status": "RUNNING", "progress": 0,
		"selfLink": "https://www.googleapis.com/compute/v1/projects/p/" + scope + "/operations/operation-1"}
	if z, ok := strings.CutPrefix(scope, "zones/"); ok {
		running["zone"] = "https://www.googleapis.com/compute/v1/projects/p/zones/" + z
	}
	if r, ok := strings.CutPrefix(scope, "regions/"); ok {
		running["region"] = "https://www.googleapis.com/compute/v1/projects/p/regions/" + r
	}
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if !strings.HasSuffix(r.URL.Path, "/wait") {
			writeJSON(w, 200, running)
			return
		}
		if waits.Add(1) <= earlyAnswers {
			writeJSON(w, 200, running)
			return
		}
		done := map[string]any{}
		for k, v := range running {
			done[k] = v
		}
		for k, v := range final {
			done[k] = v
		}
		done["status"] = "DONE"
		writeJSON(w, 200, done)
	})
	return f, &waits
}

func TestWaitComputeGlobalSuccessAfterEarlyAnswers(t *testing.T) {
	f, waits := opServer(t, "global", 2, map[string]any{"progress": 100})
	c := emulatorClients(t, f)
	op, err := c.Networks.Insert(context.Background(), WithRequestID(&computepb.InsertNetworkRequest{
		Project: "p", NetworkResource: &computepb.Network{Name: proto.String("n")},
	}))
	if err != nil {
		t.Fatal(err)
	}
	final, err := c.WaitCompute(context.Background(), op)
	if err != nil {
		t.Fatalf("WaitCompute: %v", err)
	}
	if final.GetStatus() != computepb.Operation_DONE || final.GetProgress() != 100 {
		t.Errorf("final op %v", final)
	}
	if waits.Load() != 3 {
		t.Errorf("%d wait calls, want 3 (two early answers)", waits.Load())
	}
	for _, r := range f.requests()[1:] {
		if r.Method != http.MethodPost || r.Path != "/compute/v1/projects/p/global/operations/operation-1/wait" {
			t.Errorf("waited with %s %s", r.Method, r.Path)
		}
	}
}

func TestWaitComputeZoneFailureWithoutHTTPStatus(t *testing.T) {
	// The failure carries error.errors[] but no httpErrorStatusCode: it must still fail.
	msg := "Quota 'NVIDIA_H100_GPUS' exceeded.  Limit: 8.0 in region us-central1."
	f, _ := opServer(t, "zones/us-central1-a", 1, map[string]any{"error": map[string]any{
		"errors": []any{map[string]any{"code": "QUOTA_EXCEEDED", "message": msg}},
	}})
	c := emulatorClients(t, f)
	op, err := c.Instances.Insert(context.Background(), WithRequestID(&computepb.InsertInstanceRequest{
		Project: "p", Zone: "us-central1-a", InstanceResource: &computepb.Instance{Name: proto.String("vm")},
	}))
	if err != nil {
		t.Fatal(err)
	}
	final, err := c.WaitCompute(context.Background(), op)
	if !IsQuotaExceeded(err) || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "QUOTA_EXCEEDED") {
		t.Fatalf("err = %v, want the quota failure", err)
	}
	if final.GetStatus() != computepb.Operation_DONE {
		t.Errorf("final op %v", final)
	}
	last := f.requests()[len(f.requests())-1]
	if last.Path != "/compute/v1/projects/p/zones/us-central1-a/operations/operation-1/wait" {
		t.Errorf("waited on %s", last.Path)
	}
}

func TestWaitComputeRegionStockout(t *testing.T) {
	f, _ := opServer(t, "regions/us-central1", 0, map[string]any{
		"httpErrorStatusCode": 503, "httpErrorMessage": "SERVICE UNAVAILABLE",
		"error": map[string]any{"errors": []any{map[string]any{
			"code":    "ZONE_RESOURCE_POOL_EXHAUSTED",
			"message": "The zone 'projects/p/zones/us-central1-a' does not have enough resources available to fulfill the request.  '(resource type:compute)'.",
		}}},
	})
	c := emulatorClients(t, f)
	_, err := c.WaitComputeOp(context.Background(), &computepb.Operation{
		Name: proto.String("operation-1"), Status: computepb.Operation_RUNNING.Enum(),
		Region: proto.String("https://www.googleapis.com/compute/v1/projects/p/regions/us-central1"),
	})
	if !IsStockout(err) {
		t.Fatalf("err = %v, want a stockout", err)
	}
	if p := f.requests()[0].Path; p != "/compute/v1/projects/p/regions/us-central1/operations/operation-1/wait" {
		t.Errorf("waited on %s", p)
	}
}

func TestWaitComputeDoneOperationNeedsNoCall(t *testing.T) {
	f := newFake(t, sequence())
	c := emulatorClients(t, f)
	op, err := c.WaitComputeOp(context.Background(), &computepb.Operation{Name: proto.String("op"), Status: computepb.Operation_DONE.Enum()})
	if err != nil || op.GetName() != "op" || len(f.requests()) != 0 {
		t.Errorf("op %v err %v calls %d", op, err, len(f.requests()))
	}
}

func TestWaitComputeHonoursContext(t *testing.T) {
	f, _ := opServer(t, "global", 1<<30, nil)
	c := emulatorClients(t, f, func(c *Config) { c.Poll = PollConfig{Initial: 20 * time.Millisecond, Max: 20 * time.Millisecond} })
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	_, err := c.WaitGlobalOp(ctx, "p", "operation-1")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's deadline", err)
	}
	// An always-early server is asked about once per poll interval, not in a tight loop.
	if n := len(f.requests()); n < 2 || n > 12 {
		t.Errorf("%d wait calls in 150ms with a 20ms interval", n)
	}
}

func TestWaitComputeMissingOperation(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		writeJSON(w, 404, computeError(404, "notFound", "The resource 'projects/p/zones/z/operations/op' was not found"))
	})
	c := emulatorClients(t, f)
	if _, err := c.WaitZoneOp(context.Background(), "p", "z", "op"); !IsNotFound(err) {
		t.Errorf("err = %v, want not found", err)
	}
}

func TestOperationProjectAndScope(t *testing.T) {
	op := &computepb.Operation{TargetLink: proto.String("https://www.googleapis.com/compute/v1/projects/other/global/networks/n")}
	if got := operationProject(op, "fallback"); got != "other" {
		t.Errorf("project %q", got)
	}
	if got := operationProject(&computepb.Operation{}, "fallback"); got != "fallback" {
		t.Errorf("project %q", got)
	}
	if got := lastSegment("https://x/projects/p/zones/us-central1-a"); got != "us-central1-a" {
		t.Errorf("zone %q", got)
	}
	if got := lastSegment("us-central1-a"); got != "us-central1-a" {
		t.Errorf("zone %q", got)
	}
}
