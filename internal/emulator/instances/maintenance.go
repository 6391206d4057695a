package instances

import (
	"fmt"
	"net/http"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Maintenance events and preemption: a notice in the metadata server first, then the host acts.

// hostEventKind says what a notice announces.
type hostEventKind int

const (
	eventMaintenance hostEventKind = iota
	eventPreemption
)

// preemptible reports whether Compute may preempt the VM (Spot and legacy preemptible VMs; flex-start VMs run
// until their maxRunDuration instead).
func preemptible(inst *computepb.Instance) bool {
	sc := inst.GetScheduling()
	return sc.GetProvisioningModel() == modelSpot || sc.GetPreemptible()
}

// simulateMaintenanceEvent is instances.simulateMaintenanceEvent. As on Google, a Spot or preemptible VM is
// preempted; any other VM goes through the maintenance its onHostMaintenance policy asks for. The operation
// completes once the notice is posted; the host acts when the notice window ends (NoticeWindows).
func (s *Service) simulateMaintenanceEvent(w http.ResponseWriter, r *http.Request) {
	key, inst, ok := s.runningInstanceFor(w, r)
	if !ok {
		return
	}
	kind := eventMaintenance
	if preemptible(inst) {
		kind = eventPreemption
	}
	op := s.mutateOp(r, key, "simulateMaintenanceEvent", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		if err := stillRunning(key, inst); err != nil {
			return err
		}
		s.postNotice(tx, key, inst, kind, 0)
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}

// Maintenance starts a maintenance event on a RUNNING VM (the admin API's :maintenance), warning it notice
// ahead (0: the NoticeWindows default). It returns the posted notice.
func (s *Service) Maintenance(key string, notice time.Duration) (HostEvent, error) {
	return s.startHostEvent(key, eventMaintenance, notice)
}

// Preempt preempts a RUNNING Spot or preemptible VM (the admin API's :preempt), warning it notice ahead (0:
// the NoticeWindows default). It returns the posted notice.
func (s *Service) Preempt(key string, notice time.Duration) (HostEvent, error) {
	return s.startHostEvent(key, eventPreemption, notice)
}

func (s *Service) startHostEvent(key string, kind hostEventKind, notice time.Duration) (HostEvent, error) {
	var ev HostEvent
	err := s.Store.Update(func(tx *core.Tx) error {
		var inst computepb.Instance
		if ok, _ := tx.Get(KindInstances, key, &inst); !ok {
			return core.NotFound(key)
		}
		if inst.GetStatus() != statusRunning {
			return notReady(key)
		}
		if kind == eventPreemption && !preemptible(&inst) {
			return core.BadRequest("invalid", fmt.Sprintf("Instance '%s' is neither a Spot nor a preemptible VM: Compute never preempts it.", key))
		}
		ev = s.postNotice(tx, key, &inst, kind, notice)
		return tx.Put(KindInstances, key, &inst)
	})
	return ev, err
}

// postNotice records the notice for inst (RUNNING; the caller stores it) and arms what follows it.
func (s *Service) postNotice(tx *core.Tx, key string, inst *computepb.Instance, kind hostEventKind, notice time.Duration) HostEvent {
	win := s.NoticeWindowsNow()
	ev := HostEvent{ID: s.Rand.Hex(8), InstanceID: inst.GetId(), Boot: inst.GetLastStartTimestamp()}
	var then func(key, id string)
	switch {
	case kind == eventPreemption:
		// The guest gets ACPI soft-off with the notice: the VM shows STOPPING until it is off.
		ev.Preempted = true
		inst.Status = proto.String(statusStopping)
		notice = pick(notice, win.Preemption)
		then = s.endPreemption
	case inst.GetScheduling().GetOnHostMaintenance() == catalog.MaintenanceTerminate:
		ev.MaintenanceEvent = MaintenanceTerminate
		if len(inst.GetGuestAccelerators()) > 0 {
			notice = pick(notice, win.MaintenanceGPU)
		} else {
			notice = pick(notice, win.Maintenance)
		}
		then = s.stopForMaintenance
	default:
		ev.MaintenanceEvent = MaintenanceMigrate
		notice = pick(notice, win.Maintenance)
		then = s.migrate
	}
	ev.NoticeEnds = core.Timestamp(s.Now().Add(notice))
	_ = tx.Put(KindHostEvents, key, ev)
	id := ev.ID
	s.events.after(id, notice, func() { then(key, id) })
	return ev
}

func pick(d time.Duration, def core.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return time.Duration(def)
}

// endPreemption stops (or deletes, per instanceTerminationAction) a VM whose preemption notice ran out. The
// notice keeps showing preempted=TRUE until the VM is started again.
func (s *Service) endPreemption(key, id string) {
	_ = s.Store.Update(func(tx *core.Tx) error {
		var inst computepb.Instance
		if _, ok := currentEvent(tx, key, id); !ok {
			return nil
		}
		if ok, _ := tx.Get(KindInstances, key, &inst); !ok || inst.GetStatus() != statusStopping {
			tx.Delete(KindHostEvents, key)
			return nil
		}
		if inst.GetScheduling().GetInstanceTerminationAction() == "DELETE" {
			s.discard(tx, key)
			tx.Delete(KindHostEvents, key)
			return nil
		}
		inst.Status = proto.String(statusTerminated)
		inst.LastStopTimestamp = proto.String(core.Timestamp(s.Now()))
		if inst.ResourceStatus != nil {
			inst.ResourceStatus.Scheduling = nil
		}
		return tx.Put(KindInstances, key, &inst)
	})
}

// stopForMaintenance stops a TERMINATE-on-maintenance VM once its notice ran out, then (automaticRestart)
// restarts it on a new host after the Restart window.
func (s *Service) stopForMaintenance(key, id string) {
	stopped := false
	_ = s.Store.Update(func(tx *core.Tx) error {
		var inst computepb.Instance
		if _, ok := currentEvent(tx, key, id); !ok {
			return nil
		}
		if ok, _ := tx.Get(KindInstances, key, &inst); !ok || inst.GetStatus() != statusRunning {
			tx.Delete(KindHostEvents, key) // stopped or gone meanwhile: nothing left to maintain
			return nil
		}
		s.serial.appendLine(key, s.Now(), "[ 1000.000000] hypercompute-emulator: stopped for host maintenance")
		inst.Status = proto.String(statusTerminated)
		inst.LastStopTimestamp = proto.String(core.Timestamp(s.Now()))
		stopped = true
		return tx.Put(KindInstances, key, &inst)
	})
	if stopped {
		s.events.after(id, time.Duration(s.NoticeWindowsNow().Restart), func() { s.restartAfterMaintenance(key, id) })
	}
}

func (s *Service) restartAfterMaintenance(key, id string) {
	_ = s.Store.Update(func(tx *core.Tx) error {
		var inst computepb.Instance
		if _, ok := currentEvent(tx, key, id); !ok {
			return nil
		}
		tx.Delete(KindHostEvents, key)
		if ok, _ := tx.Get(KindInstances, key, &inst); !ok || inst.GetStatus() != statusTerminated || !inst.GetScheduling().GetAutomaticRestart() {
			return nil
		}
		s.moveHost(&inst)
		s.markRunning(&inst)
		return tx.Put(KindInstances, key, &inst)
	})
}

// migrate live-migrates a MIGRATE-on-maintenance VM to a new host once its notice ran out: it keeps running,
// and instance/maintenance-event returns to NONE.
func (s *Service) migrate(key, id string) {
	_ = s.Store.Update(func(tx *core.Tx) error {
		var inst computepb.Instance
		if _, ok := currentEvent(tx, key, id); !ok {
			return nil
		}
		tx.Delete(KindHostEvents, key)
		if ok, _ := tx.Get(KindInstances, key, &inst); !ok || inst.GetStatus() != statusRunning {
			return nil
		}
		s.serial.appendLine(key, s.Now(), "[ 1000.000000] hypercompute-emulator: live-migrated to a new host")
		s.moveHost(&inst)
		inst.Fingerprint = proto.String(s.randomFingerprint())
		return tx.Put(KindInstances, key, &inst)
	})
}
