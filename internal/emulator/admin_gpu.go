package emulator

import (
	"net/http"
	"path"
	"sync"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/gpustandin"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/metadata"
)

// GPUFaultRequest is the body of POST /emulator/v1/projects/P/zones/Z/instances/NAME:gpuFault.
// An empty fault heals the VM's GPUs.
type GPUFaultRequest struct {
	gpustandin.Fault
}

// GPUFaultResult answers it: the fault and the physical host it sticks to.
type GPUFaultResult struct {
	Instance     string           `json:"instance"`
	PhysicalHost string           `json:"physicalHost"`
	Fault        gpustandin.Fault `json:"fault"`
}

// gpuFault is a fault of the GPUs on one physical host: a reset keeps it (the same hardware
// again); a VM moved to another host (reportHostAsFaulty, a host error) leaves it behind.
type gpuFault struct {
	host  string
	fault gpustandin.Fault
}

// gpuFaults holds every emulator's GPU faults by instance key.
var gpuFaults sync.Map // *Emulator → *sync.Map[string]gpuFault

func (e *Emulator) gpuFaultsOf() *sync.Map {
	m, _ := gpuFaults.LoadOrStore(e, &sync.Map{})
	return m.(*sync.Map)
}

// gpuTools are the GPU tool stand-ins a VM boots with: for its machine type's GPUs, reporting the
// fault of its current physical host. VMs without GPUs get none.
func (e *Emulator) gpuTools(key string) map[string][]byte {
	svc, ok := e.srv.Component("instances").(*instances.Service)
	if !ok {
		return nil
	}
	inst, ok := svc.Instance(key)
	if !ok {
		return nil
	}
	var f gpustandin.Fault
	if v, ok := e.gpuFaultsOf().Load(key); ok && v.(gpuFault).host == inst.GetResourceStatus().GetPhysicalHost() {
		f = v.(gpuFault).fault
	}
	tools, _ := gpustandin.Tools(path.Base(inst.GetMachineType()), key, f)
	return tools
}

// gpuDevices is how many GPU device files (/dev/nvidiaN) a VM boots with: its machine type's GPU
// count, which gres.conf names.
func (e *Emulator) gpuDevices(key string) int {
	svc, ok := e.srv.Component("instances").(*instances.Service)
	if !ok {
		return 0
	}
	inst, ok := svc.Instance(key)
	if !ok {
		return 0
	}
	m, ok := catalog.Machine(path.Base(inst.GetMachineType()))
	if !ok || !m.HasGPU() {
		return 0
	}
	return m.GPU.Count
}

// registerGPUFaults lets tests make a VM's GPU tool stand-ins report a fault (ECC errors, a missing
// GPU, NVLink errors, low NCCL bandwidth, a failing DCGM diagnostic, remapped rows pending, a
// remapping failure, unrepairable memory), as failing hardware would:
//
//	POST /emulator/v1/projects/P/zones/Z/instances/NAME:gpuFault  {"uncorrectedEcc": 2, "missingGpus": 1, ...}
//	POST .../NAME:gpuFault  {"remappedRowsPending": true, "remappingFailure": true, "unrepairableMemory": true}
func registerGPUFaults(e *Emulator) {
	md, mok := e.srv.Component("metadata").(*metadata.Server)
	svc, iok := e.srv.Component("instances").(*instances.Service)
	if !mok || !iok {
		return
	}
	md.HandleAction("gpuFault", func(w http.ResponseWriter, r *http.Request, key string) {
		var req GPUFaultRequest
		if err := core.ReadJSON(r, &req); err != nil {
			core.WriteError(w, r, err)
			return
		}
		inst, ok := svc.Instance(key)
		if !ok {
			core.WriteError(w, r, core.GoogleError(http.StatusNotFound, "instance %s not found", key))
			return
		}
		if _, gpus := gpustandin.Tools(path.Base(inst.GetMachineType()), key, req.Fault); !gpus {
			core.WriteError(w, r, core.GoogleError(http.StatusBadRequest, "machine type %s has no GPUs", path.Base(inst.GetMachineType())))
			return
		}
		if err := gpustandin.CheckFault(path.Base(inst.GetMachineType()), req.Fault); err != nil {
			core.WriteError(w, r, core.GoogleError(http.StatusBadRequest, "%v", err))
			return
		}
		host := inst.GetResourceStatus().GetPhysicalHost()
		e.gpuFaultsOf().Store(key, gpuFault{host: host, fault: req.Fault})
		if rt := e.Runtime(); rt != nil && inst.GetStatus() == "RUNNING" {
			if err := rt.InstallSbinFiles(r.Context(), key, e.gpuTools(key)); err != nil {
				core.WriteError(w, r, core.GoogleError(http.StatusConflict, "the fault is recorded, but the running VM's tools were not updated: %v", err))
				return
			}
		}
		core.WriteJSON(w, http.StatusOK, GPUFaultResult{Instance: key, PhysicalHost: host, Fault: req.Fault})
	})
}
