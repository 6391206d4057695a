package core

import (
	"errors"
	"testing"
)

func TestStoreUpdateRollsBackAndNotifies(t *testing.T) {
	s := NewStore()
	var changes []Change
	cancel := s.Watch(func(c Change) { changes = append(changes, c) })
	defer cancel()
	if err := s.Put("k", "projects/p/a", map[string]string{"v": "1"}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := s.Update(func(tx *Tx) error {
		_ = tx.Put("k", "projects/p/a", map[string]string{"v": "2"})
		_ = tx.Put("k", "projects/p/b", map[string]string{"v": "3"})
		tx.Delete("k", "projects/p/a")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update error = %v", err)
	}
	var got map[string]string
	if ok, _ := s.Get("k", "projects/p/a", &got); !ok || got["v"] != "1" || s.Exists("k", "projects/p/b") {
		t.Errorf("rollback left a=%v b=%v", got, s.Exists("k", "projects/p/b"))
	}
	if len(changes) != 1 {
		t.Errorf("watchers saw %d changes, want only the committed put", len(changes))
	}

	// A savepoint undoes part of a transaction.
	_ = s.Update(func(tx *Tx) error {
		_ = tx.Put("k", "projects/p/c", map[string]string{"v": "c"})
		sp := tx.Savepoint()
		_ = tx.Put("k", "projects/p/d", map[string]string{"v": "d"})
		tx.RollbackTo(sp)
		return nil
	})
	if !s.Exists("k", "projects/p/c") || s.Exists("k", "projects/p/d") {
		t.Error("savepoint rollback wrong")
	}
	if recs := s.List("k", "projects/p/"); len(recs) != 2 || recs[0].Key != "projects/p/a" || recs[1].Key != "projects/p/c" {
		t.Errorf("List = %v", recs)
	}
	last := changes[len(changes)-1]
	if last.Key != "projects/p/c" || last.Old != nil || last.New == nil {
		t.Errorf("last change = %+v", last)
	}
}

func TestQuotaChargeIsAllOrNothing(t *testing.T) {
	srv := NewServer(Options{})
	srv.Quotas.SetLimit("us-central1", "NVIDIA_H100_GPUS", 8)
	err := srv.Store.Update(func(tx *Tx) error {
		return srv.Quotas.ChargeTx(tx, "us-central1", map[string]float64{"CPUS": 208, "NVIDIA_H100_GPUS": 16})
	})
	var oe *OpError
	if !errors.As(err, &oe) || oe.HTTPStatus != 403 || oe.Errors[0].GetCode() != "QUOTA_EXCEEDED" || oe.Errors[0].GetErrorDetails()[1].GetQuotaInfo().GetLimit() != 8 {
		t.Fatalf("charge over the limit = %v", err)
	}
	if u := srv.Quotas.Get("us-central1", "CPUS").Usage; u != 0 {
		t.Errorf("CPUS charged %v although the charge failed", u)
	}
	if err := srv.Quotas.Charge("us-central1", "NVIDIA_H100_GPUS", 8); err != nil {
		t.Errorf("charge at the limit: %v", err)
	}
}

func TestFaultMatchingAndFailOperations(t *testing.T) {
	f := NewFaults(1)
	seed := uint64(3)
	if err := f.Apply(FaultSpec{
		Seed:    &seed,
		Latency: map[string]Duration{"compute.*": Duration(5), "compute.instances.*": Duration(7), "compute.instances.insert": Duration(9)},
		FailOperations: []FailOperations{
			{Count: 1, Code: "RESOURCE_NOT_FOUND"},
			{Method: "compute.instances.insert", Count: 2, Code: "ZONE_RESOURCE_POOL_EXHAUSTED"},
		},
	}); err != nil {
		t.Fatal(err)
	}
	for m, want := range map[string]Duration{"compute.networks.insert": 5, "compute.instances.delete": 7, "compute.instances.insert": 9} {
		if d, ok := f.Latency(m); !ok || Duration(d) != want {
			t.Errorf("Latency(%s) = %v %v, want %v", m, d, ok, want)
		}
	}
	if _, ok := f.Latency("file.projects.locations.instances.create"); ok {
		t.Error("compute.* matched a Filestore method")
	}
	for i := 0; i < 2; i++ {
		if e := f.TakeOperationFailure("compute.instances.insert"); e == nil || e.Errors[0].GetCode() != "ZONE_RESOURCE_POOL_EXHAUSTED" || e.HTTPStatus != 503 {
			t.Fatalf("failure %d for instances.insert = %v", i, e)
		}
	}
	if e := f.TakeOperationFailure("compute.instances.insert"); e == nil || e.Errors[0].GetCode() != "RESOURCE_NOT_FOUND" || e.HTTPStatus != 404 {
		t.Errorf("the any-method failure = %v", e)
	}
	if e := f.TakeOperationFailure("compute.instances.insert"); e != nil {
		t.Errorf("failures not used up: %v", e)
	}
	if len(f.Spec().FailOperations) != 0 {
		t.Errorf("spent failOperations still listed: %+v", f.Spec().FailOperations)
	}
}
