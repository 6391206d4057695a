package emulator

import "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"

// GPUToolsOf exposes to this package's external tests the GPU tool stand-ins a VM boots with.
func (e *Emulator) GPUToolsOf(project, zone, name string) map[string][]byte {
	return e.gpuTools(instances.InstanceKey(project, zone, name))
}
