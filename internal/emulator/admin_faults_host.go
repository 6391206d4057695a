package emulator

import (
	"net/http"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/metadata"
)

// HostEventRequest is the optional body of the :maintenance and :preempt admin verbs.
type HostEventRequest struct {
	// Notice is how long the VM is warned before its host acts ("2s"; default: GET /emulator/v1/noticeWindows).
	Notice core.Duration `json:"notice,omitempty"`
}

// HostFaultResult answers :hostFault: the VM after the fault.
type HostFaultResult struct {
	Instance     string `json:"instance"`
	Status       string `json:"status"`
	PhysicalHost string `json:"physicalHost"`
}

// HostEventResult answers :maintenance and :preempt: the notice posted.
type HostEventResult struct {
	Instance string `json:"instance"`
	instances.HostEvent
}

// registerHostFaults lets tests inject what a VM's host does to it, as Google's hosts do unasked:
//
//	POST /emulator/v1/projects/P/zones/Z/instances/NAME:hostFault    the host fails: the VM reboots on a new host
//	                                                                 (stops without automaticRestart)
//	POST /emulator/v1/projects/P/zones/Z/instances/NAME:maintenance  a maintenance event, after a notice
//	POST /emulator/v1/projects/P/zones/Z/instances/NAME:preempt      a preemption of a Spot VM, after a notice
func registerHostFaults(e *Emulator) {
	md, mok := e.srv.Component("metadata").(*metadata.Server)
	inst, iok := e.srv.Component("instances").(*instances.Service)
	if !mok || !iok {
		return
	}
	md.HandleAction("hostFault", func(w http.ResponseWriter, r *http.Request, key string) {
		vm, err := inst.HostError(key)
		if err != nil {
			core.WriteError(w, r, err)
			return
		}
		core.WriteJSON(w, http.StatusOK, HostFaultResult{Instance: key, Status: vm.GetStatus(), PhysicalHost: vm.GetResourceStatus().GetPhysicalHost()})
	})
	event := func(start func(key string, notice time.Duration) (instances.HostEvent, error)) metadata.InstanceAction {
		return func(w http.ResponseWriter, r *http.Request, key string) {
			var req HostEventRequest
			if err := core.ReadJSON(r, &req); err != nil {
				core.WriteError(w, r, err)
				return
			}
			if req.Notice < 0 {
				core.WriteError(w, r, core.GoogleError(http.StatusBadRequest, "notice: must not be negative"))
				return
			}
			ev, err := start(key, time.Duration(req.Notice))
			if err != nil {
				core.WriteError(w, r, err)
				return
			}
			core.WriteJSON(w, http.StatusOK, HostEventResult{Instance: key, HostEvent: ev})
		}
	}
	md.HandleAction("maintenance", event(inst.Maintenance))
	md.HandleAction("preempt", event(inst.Preempt))
}
