package instances

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// faultBehaviors are the values InstancesReportHostAsFaultyRequestFaultReason.behavior accepts.
var faultBehaviors = []string{"BEHAVIOR_UNSPECIFIED", "CHIP_ERROR", "PERFORMANCE", "SILENT_DATA_CORRUPTION", "UNRECOVERABLE_GPU_ERROR"}

// reportHostAsFaulty is instances.reportHostAsFaulty: the caller says the VM's host is bad; Compute shuts the
// VM down and, with automaticRestart, restarts it on a healthy host (without, it stays TERMINATED). Only the
// IMMEDIATE disruption schedule is offered. Google accepts the call only for reserved A3/A4-class GPU VMs; the
// local cloud accepts it for any RUNNING VM, so auto-repair can be exercised on small VMs.
func (s *Service) reportHostAsFaulty(w http.ResponseWriter, r *http.Request) {
	req := &computepb.InstancesReportHostAsFaultyRequest{}
	if _, err := readBody(r, req); err != nil {
		fail(w, r, err)
		return
	}
	const f = "instancesReportHostAsFaultyRequestResource"
	switch ds := req.GetDisruptionSchedule(); ds {
	case "IMMEDIATE":
	case "":
		fail(w, r, core.Required(f+".disruptionSchedule"))
		return
	default:
		fail(w, r, core.InvalidField(f+".disruptionSchedule", ds, "Only IMMEDIATE is supported."))
		return
	}
	for i, fr := range req.GetFaultReasons() {
		if b := fr.GetBehavior(); b != "" && !slices.Contains(faultBehaviors, b) {
			fail(w, r, core.InvalidField(fmt.Sprintf("%s.faultReasons[%d].behavior", f, i), b, "Must be one of "+strings.Join(faultBehaviors, ", ")+"."))
			return
		}
	}
	key, inst, ok := s.runningInstanceFor(w, r)
	if !ok {
		return
	}
	op := s.mutateOp(r, key, "reportHostAsFaulty", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		if err := stillRunning(key, inst); err != nil {
			return err
		}
		s.rehost(tx, key, inst, inst.GetScheduling().GetAutomaticRestart(), "host reported faulty: "+describeFaults(req.GetFaultReasons()))
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}

func describeFaults(l []*computepb.InstancesReportHostAsFaultyRequestFaultReason) string {
	var out []string
	for _, fr := range l {
		out = append(out, strings.TrimSpace(firstNonEmpty(fr.GetBehavior(), "BEHAVIOR_UNSPECIFIED")+" "+fr.GetDescription()))
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "no reason given"
	}
	return strings.Join(out, "; ")
}

// HostError is a failure of the host under a RUNNING VM (the admin API's :hostFault): the VM is moved to a new
// host and rebooted there, or, without automaticRestart (Spot VMs), stopped. It returns the VM as it is now.
func (s *Service) HostError(key string) (*computepb.Instance, error) {
	var out computepb.Instance
	err := s.Store.Update(func(tx *core.Tx) error {
		if ok, _ := tx.Get(KindInstances, key, &out); !ok {
			return core.NotFound(key)
		}
		if out.GetStatus() != statusRunning {
			return notReady(key)
		}
		s.rehost(tx, key, &out, out.GetScheduling().GetAutomaticRestart(), "host error")
		return tx.Put(KindInstances, key, &out)
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// rehost moves inst (RUNNING) off its host: to a new host where it boots again (restart), or to no host
// (TERMINATED). A notice in flight is moot. The caller stores inst.
func (s *Service) rehost(tx *core.Tx, key string, inst *computepb.Instance, restart bool, why string) {
	tx.Delete(KindHostEvents, key)
	now := s.Now()
	s.serial.appendLine(key, now, "[ 1000.000000] hypercompute-emulator: "+why)
	if !restart {
		inst.Status = proto.String(statusTerminated)
		inst.LastStopTimestamp = proto.String(core.Timestamp(now))
		inst.Fingerprint = proto.String(s.randomFingerprint())
		return
	}
	s.moveHost(inst)
	inst.LastStartTimestamp = proto.String(core.Timestamp(now))
	inst.Fingerprint = proto.String(s.randomFingerprint())
	s.serial.boot(key, inst, now)
	if _, _, wk := s.hooks(); wk != nil {
		wk.enqueue(key, actReset)
	}
}
