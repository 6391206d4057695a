package gcp

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"google.golang.org/api/servicenetworking/v1"
)

func TestWaitFilestoreCreate(t *testing.T) {
	const opName = "projects/p/locations/us-central1-a/operations/op-1"
	var polls atomic.Int32
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/filestore/v1/projects/p/locations/us-central1-a/instances":
			writeJSON(w, 200, map[string]any{"name": opName})
		case r.Method == http.MethodGet && r.URL.Path == "/filestore/v1/"+opName:
			if polls.Add(1) < 3 {
				writeJSON(w, 200, map[string]any{"name": opName, "done": false})
				return
			}
			writeJSON(w, 200, map[string]any{"name": opName, "done": true, "response": map[string]any{
				"@type": "type.googleapis.com/google.cloud.filestore.v1.Instance",
				"name":  "projects/p/locations/us-central1-a/instances/home", "tier": "BASIC_HDD", "state": "READY",
				"fileShares": []any{map[string]any{"name": "home", "capacityGb": "1024"}},
			}})
		default:
			writeJSON(w, 404, map[string]any{"error": map[string]any{"code": 404, "message": "no route " + r.URL.Path, "status": "NOT_FOUND"}})
		}
	})
	c := emulatorClients(t, f)
	op, err := c.Filestore.CreateInstance(context.Background(), &filestorepb.CreateInstanceRequest{
		Parent: "projects/p/locations/us-central1-a", InstanceId: "home",
		Instance: &filestorepb.Instance{Tier: filestorepb.Instance_BASIC_HDD,
			FileShares: []*filestorepb.FileShareConfig{{Name: "home", CapacityGb: 1024}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := c.WaitFilestoreInstance(context.Background(), op.Name())
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	if inst.GetState() != filestorepb.Instance_READY || inst.GetFileShares()[0].GetCapacityGb() != 1024 {
		t.Errorf("instance %v", inst)
	}
	if polls.Load() != 3 {
		t.Errorf("%d polls, want 3", polls.Load())
	}
}

func TestWaitFilestoreFailure(t *testing.T) {
	const opName = "projects/p/locations/z/operations/op-2"
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		writeJSON(w, 200, map[string]any{"name": opName, "done": true,
			"error": map[string]any{"code": 8, "message": "Quota 'BASIC_HDD_TOTAL_CAPACITY' exceeded"}})
	})
	c := emulatorClients(t, f)
	err := c.WaitFilestoreOp(context.Background(), opName, nil)
	if !IsQuotaExceeded(err) || !strings.Contains(err.Error(), "BASIC_HDD_TOTAL_CAPACITY") || !strings.Contains(err.Error(), opName) {
		t.Errorf("err = %v", err)
	}
}

func TestWaitServiceNetworkingPatch(t *testing.T) {
	var polls atomic.Int32
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		switch {
		case r.Method == http.MethodPatch && r.URL.Path == "/servicenetworking/v1/services/servicenetworking.googleapis.com/connections/-":
			writeJSON(w, 200, map[string]any{"name": "operations/pssn.abc"})
		case r.Method == http.MethodGet && r.URL.Path == "/servicenetworking/v1/operations/pssn.abc":
			if polls.Add(1) < 2 {
				writeJSON(w, 200, map[string]any{"name": "operations/pssn.abc"})
				return
			}
			writeJSON(w, 200, map[string]any{"name": "operations/pssn.abc", "done": true, "response": map[string]any{
				"@type":   "type.googleapis.com/google.cloud.servicenetworking.v1.Connection",
				"network": "projects/123/global/networks/n", "peering": "servicenetworking-googleapis-com",
			}})
		default:
			writeJSON(w, 404, map[string]any{"error": map[string]any{"code": 404, "message": "no route " + r.URL.Path}})
		}
	})
	c := emulatorClients(t, f)
	op, err := c.ServiceNetworking.Services.Connections.Patch("services/servicenetworking.googleapis.com/connections/-",
		&servicenetworking.Connection{Network: "projects/123/global/networks/n", ReservedPeeringRanges: []string{"psa"}}).
		UpdateMask("reservedPeeringRanges").Force(true).Context(context.Background()).Do()
	if err != nil {
		t.Fatal(err)
	}
	final, err := c.WaitServiceNetworkingOp(context.Background(), op)
	if err != nil || !final.Done || !strings.Contains(string(final.Response), "servicenetworking-googleapis-com") {
		t.Fatalf("final %+v err %v", final, err)
	}
}

func TestWaitServiceNetworkingFailure(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		writeJSON(w, 200, map[string]any{"name": "operations/x", "done": true, "error": map[string]any{
			"code": 9, "message": "Cannot modify allocated ranges in CreateConnection. Please use UpdateConnection."}})
	})
	c := emulatorClients(t, f)
	_, err := c.WaitServiceNetworkingOp(context.Background(), &servicenetworking.Operation{Name: "operations/x"})
	if !IsPreconditionFailed(err) || !strings.Contains(err.Error(), "Please use UpdateConnection") {
		t.Errorf("err = %v", err)
	}
}
