package instances

import (
	"fmt"
	"net/http"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// setStatus changes a stored instance's status now (the transitional states calls show before their operation
// completes) and returns the previous one.
func (s *Service) setStatus(key, status string) (prev string, err error) {
	err = s.Store.Update(func(tx *core.Tx) error {
		var inst computepb.Instance
		if ok, _ := tx.Get(KindInstances, key, &inst); !ok {
			return core.NotFound(key)
		}
		prev = inst.GetStatus()
		inst.Status = proto.String(status)
		return tx.Put(KindInstances, key, &inst)
	})
	return prev, err
}

// restoreStatus is the rollback of a failed transition: the instance returns to prev if it still shows now.
func restoreStatus(tx *core.Tx, key, now, prev string) {
	var inst computepb.Instance
	if ok, _ := tx.Get(KindInstances, key, &inst); ok && inst.GetStatus() == now {
		inst.Status = proto.String(prev)
		_ = tx.Put(KindInstances, key, &inst)
	}
}

func (s *Service) mutateOp(r *http.Request, key, opType string, id uint64, apply func(tx *core.Tx, inst *computepb.Instance) error, rollback func(tx *core.Tx)) *computepb.Operation {
	project, zone, _, _ := ParseInstanceKey(key)
	return s.Ops.StartCompute(r, core.ComputeOp{
		Project: project, Zone: zone, OperationType: opType, TargetLink: key, TargetID: id,
		Apply: func(tx *core.Tx, _ *computepb.Operation) error {
			var inst computepb.Instance
			if ok, _ := tx.Get(KindInstances, key, &inst); !ok {
				return core.OpNotFound(key)
			}
			if err := apply(tx, &inst); err != nil {
				return err
			}
			if tx.Exists(KindInstances, key) {
				return tx.Put(KindInstances, key, &inst)
			}
			return nil
		},
		Rollback: rollback,
	})
}

func (s *Service) deleteInstance(w http.ResponseWriter, r *http.Request) {
	key, inst, ok := s.instanceFor(w, r)
	if !ok {
		return
	}
	if inst.GetDeletionProtection() {
		fail(w, r, core.BadRequest("invalidResourceUsage", "Invalid resource usage: 'Resource cannot be deleted if it's protected against deletion.'."))
		return
	}
	prev, err := s.setStatus(key, statusStopping)
	if err != nil {
		fail(w, r, err)
		return
	}
	op := s.mutateOp(r, key, "delete", inst.GetId(), func(tx *core.Tx, _ *computepb.Instance) error {
		s.discard(tx, key)
		return nil
	}, func(tx *core.Tx) { restoreStatus(tx, key, statusStopping, prev) })
	core.WriteJSON(w, http.StatusOK, op)
}

func (s *Service) setMetadata(w http.ResponseWriter, r *http.Request) {
	md := &computepb.Metadata{}
	if _, err := readBody(r, md); err != nil {
		fail(w, r, err)
		return
	}
	key, inst, ok := s.instanceFor(w, r)
	if !ok {
		return
	}
	current := inst.GetMetadata().GetFingerprint()
	if md.GetFingerprint() != current {
		fail(w, r, core.ConditionNotMet(metadataFingerprint))
		return
	}
	if err := validateMetadata("metadata", md); err != nil {
		fail(w, r, err)
		return
	}
	op := s.mutateOp(r, key, "setMetadata", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		if inst.GetMetadata().GetFingerprint() != current {
			return core.NewOpError(412, "CONDITION_NOT_MET", metadataFingerprint)
		}
		inst.Metadata = s.normalizeMetadata(&computepb.Metadata{Items: md.GetItems()})
		inst.Fingerprint = proto.String(s.randomFingerprint())
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}

func (s *Service) setLabels(w http.ResponseWriter, r *http.Request) {
	req := &computepb.InstancesSetLabelsRequest{}
	if _, err := readBody(r, req); err != nil {
		fail(w, r, err)
		return
	}
	key, inst, ok := s.instanceFor(w, r)
	if !ok {
		return
	}
	current := inst.GetLabelFingerprint()
	if req.GetLabelFingerprint() != current {
		fail(w, r, core.ConditionNotMet(labelsFingerprint))
		return
	}
	if err := validateLabels("labels", req.GetLabels()); err != nil {
		fail(w, r, err)
		return
	}
	op := s.mutateOp(r, key, "setLabels", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		if inst.GetLabelFingerprint() != current {
			return core.NewOpError(412, "CONDITION_NOT_MET", labelsFingerprint)
		}
		inst.Labels = req.GetLabels()
		inst.LabelFingerprint = proto.String(s.randomFingerprint())
		inst.Fingerprint = proto.String(s.randomFingerprint())
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}

func notReady(key string) *core.APIError {
	return core.BadRequest("resourceNotReady", fmt.Sprintf("The resource '%s' is not ready", key))
}

// runningInstanceFor is instanceFor for a call Compute takes only on a RUNNING instance (reset,
// reportHostAsFaulty, simulateMaintenanceEvent); any other status is 400 resourceNotReady.
func (s *Service) runningInstanceFor(w http.ResponseWriter, r *http.Request) (string, *computepb.Instance, bool) {
	key, inst, ok := s.instanceFor(w, r)
	if ok && inst.GetStatus() != statusRunning {
		fail(w, r, notReady(key))
		return "", nil, false
	}
	return key, inst, ok
}

// stillRunning fails such a call's operation when the instance stopped running before it ran.
func stillRunning(key string, inst *computepb.Instance) error {
	if inst.GetStatus() != statusRunning {
		return core.NewOpError(400, "RESOURCE_NOT_READY", fmt.Sprintf("The resource '%s' is not ready", key))
	}
	return nil
}

func (s *Service) resetInstance(w http.ResponseWriter, r *http.Request) {
	key, inst, ok := s.runningInstanceFor(w, r)
	if !ok {
		return
	}
	op := s.mutateOp(r, key, "reset", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		if err := stillRunning(key, inst); err != nil {
			return err
		}
		s.serial.reset(key, inst, s.Now())
		if _, _, wk := s.hooks(); wk != nil {
			wk.enqueue(key, actReset)
		}
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}

func (s *Service) stopInstance(w http.ResponseWriter, r *http.Request) {
	key, inst, ok := s.instanceFor(w, r)
	if !ok {
		return
	}
	prev := inst.GetStatus()
	if prev != statusTerminated {
		var err error
		if prev, err = s.setStatus(key, statusStopping); err != nil {
			fail(w, r, err)
			return
		}
	}
	op := s.mutateOp(r, key, "stop", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		if inst.GetStatus() == statusTerminated {
			return nil
		}
		inst.Status = proto.String(statusTerminated)
		inst.LastStopTimestamp = proto.String(core.Timestamp(s.Now()))
		if inst.ResourceStatus != nil {
			inst.ResourceStatus.Scheduling = nil
		}
		return nil
	}, func(tx *core.Tx) { restoreStatus(tx, key, statusStopping, prev) })
	core.WriteJSON(w, http.StatusOK, op)
}

func (s *Service) startInstance(w http.ResponseWriter, r *http.Request) {
	key, inst, ok := s.instanceFor(w, r)
	if !ok {
		return
	}
	prev := inst.GetStatus()
	switch prev {
	case statusRunning, statusProvisioning, statusStaging, statusPending:
		op := s.mutateOp(r, key, "start", inst.GetId(), func(*core.Tx, *computepb.Instance) error { return nil }, nil)
		core.WriteJSON(w, http.StatusOK, op)
		return
	case statusTerminated, "STOPPED", "SUSPENDED":
	default:
		fail(w, r, notReady(key))
		return
	}
	if _, err := s.setStatus(key, statusStaging); err != nil {
		fail(w, r, err)
		return
	}
	op := s.mutateOp(r, key, "start", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		zone := lastSegment(inst.GetZone())
		name, _ := machineTypeName(inst.GetMachineType())
		if s.stockedOut(zone, name) {
			project, _, _, _ := ParseInstanceKey(key)
			return core.ZoneResourcePoolExhausted(project, zone)
		}
		s.markRunning(inst)
		return nil
	}, func(tx *core.Tx) { restoreStatus(tx, key, statusStaging, prev) })
	core.WriteJSON(w, http.StatusOK, op)
}

// ProvisionPending retries flex-start VMs waiting in PENDING; those that now find capacity become RUNNING. It
// returns how many did.
func (s *Service) ProvisionPending() int {
	n := 0
	for _, rec := range s.Store.List(KindInstances, "") {
		if p, ok := probe(rec.JSON); !ok || p.Status != statusPending {
			continue
		}
		key := rec.Key
		_ = s.Store.Update(func(tx *core.Tx) error {
			var inst computepb.Instance
			if ok, _ := tx.Get(KindInstances, key, &inst); !ok || inst.GetStatus() != statusPending {
				return nil
			}
			if err := s.acquire(tx, key, &inst); err != nil {
				return err // rolls back this attempt only
			}
			s.markRunning(&inst)
			n++
			return tx.Put(KindInstances, key, &inst)
		})
	}
	return n
}
