package instances

import (
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// A VM whose maxRunDuration ran out is ended per its instanceTerminationAction and gives back its quota.
func TestTerminateAtDeadline(t *testing.T) {
	srv := core.NewServer(core.Options{Seed: 1})
	s := Register(srv)
	t.Cleanup(srv.Close)
	deadline := core.Timestamp(time.Now().Add(time.Hour))
	put := func(name, action string) string {
		key := InstanceKey("p", "us-central1-a", name)
		inst := &computepb.Instance{
			Name: proto.String(name), Status: proto.String(statusRunning),
			Scheduling:     &computepb.Scheduling{InstanceTerminationAction: proto.String(action)},
			ResourceStatus: &computepb.ResourceStatus{Scheduling: &computepb.ResourceStatusScheduling{TerminationTimestamp: proto.String(deadline)}},
		}
		err := srv.Store.Update(func(tx *core.Tx) error {
			if err := srv.Quotas.ChargeTx(tx, "us-central1", map[string]float64{"CPUS": 4}); err != nil {
				return err
			}
			if err := tx.Put(KindCharges, key, Charge{Region: "us-central1", Amounts: map[string]float64{"CPUS": 4}}); err != nil {
				return err
			}
			return tx.Put(KindInstances, key, inst)
		})
		if err != nil {
			t.Fatal(err)
		}
		return key
	}
	del, stop := put("del", "DELETE"), put("stop", "STOP")
	if len(s.timers.m) != 2 {
		t.Fatalf("%d run-duration timers armed, want 2", len(s.timers.m))
	}
	s.terminate(del, "another deadline") // a stale timer does nothing
	if !srv.Store.Exists(KindInstances, del) {
		t.Fatal("stale deadline ended the VM")
	}
	s.terminate(del, deadline)
	s.terminate(stop, deadline)
	if srv.Store.Exists(KindInstances, del) {
		t.Error("DELETE action left the VM")
	}
	inst, _ := s.Instance(stop)
	if inst.GetStatus() != statusTerminated || inst.GetResourceStatus().GetScheduling() != nil {
		t.Errorf("STOP action: %s %v", inst.GetStatus(), inst.GetResourceStatus())
	}
	if q := srv.Quotas.Get("us-central1", "CPUS"); q.Usage != 4 {
		t.Errorf("CPUS usage %v, want 4 (the deleted VM's given back)", q.Usage)
	}
	if len(s.timers.m) != 0 {
		t.Errorf("%d timers left armed", len(s.timers.m))
	}
}
