package core

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestLROCompletesAppliesAndFails(t *testing.T) {
	srv := NewServer(Options{OpLatency: 30 * time.Millisecond})
	req := httptest.NewRequest("POST", "/lustre/v1/projects/p/locations/z/instances", nil)
	req = req.WithContext(WithRoute(req.Context(), Route{Method: "lustre.projects.locations.instances.create", Class: Mutating}))

	l := srv.Ops.StartLRO(req, LROSpec{
		Parent: "projects/p/locations/z",
		Metadata: func(done bool, now time.Time) any {
			return Typed("type.googleapis.com/google.cloud.lustre.v1.OperationMetadata", map[string]any{"done": done})
		},
		Apply: func(tx *Tx) (any, error) {
			return Typed("type.googleapis.com/google.cloud.lustre.v1.Instance", map[string]any{"name": "projects/p/locations/z/instances/fs"}),
				tx.Put("lustre.instances", "projects/p/locations/z/instances/fs", map[string]any{"name": "fs"})
		},
	})
	if l.Done || len(l.Name) < len("projects/p/locations/z/operations/") || l.Name[:len("projects/p/locations/z/operations/")] != "projects/p/locations/z/operations/" {
		t.Fatalf("started LRO = %+v", l)
	}
	if srv.Store.Exists("lustre.instances", "projects/p/locations/z/instances/fs") {
		t.Error("instance exists before the operation completed")
	}
	srv.Ops.Wait(context.Background(), l.Name, time.Second)
	got, ok := srv.Ops.GetLRO(l.Name)
	if !ok || !got.Done || got.Error != nil || string(got.Response) != `{"@type":"type.googleapis.com/google.cloud.lustre.v1.Instance","name":"projects/p/locations/z/instances/fs"}` ||
		string(got.Metadata) != `{"@type":"type.googleapis.com/google.cloud.lustre.v1.OperationMetadata","done":true}` {
		t.Fatalf("done LRO = %+v (%s / %s)", got, got.Response, got.Metadata)
	}
	if !srv.Store.Exists("lustre.instances", "projects/p/locations/z/instances/fs") {
		t.Error("instance missing after completion")
	}

	// An Apply error fails the operation with the google.rpc code and undoes Apply's writes.
	l = srv.Ops.StartLRO(req, LROSpec{Name: "operations/x", Latency: new(time.Duration), Apply: func(tx *Tx) (any, error) {
		_ = tx.Put("lustre.instances", "projects/p/locations/z/instances/other", map[string]any{})
		return nil, GoogleError(http.StatusConflict, "exists")
	}})
	got, _ = srv.Ops.GetLRO("operations/x")
	if !got.Done || got.Error == nil || got.Error.Code != 6 || got.Error.Message != "exists" || srv.Store.Exists("lustre.instances", "projects/p/locations/z/instances/other") {
		t.Errorf("failed LRO = %+v", got)
	}
}
