// Package instances emulates Compute Engine's VM family on top of the emulator core: instances (insert, get, list,
// aggregatedList, delete, setMetadata, setLabels, reset, stop, start, getGuestAttributes, getSerialPortOutput,
// reportHostAsFaulty, simulateMaintenanceEvent; host faults, maintenance and preemption in hostevents.go; the
// in-place changes setMachineType, setServiceAccount, setMinCpuPlatform, setScheduling, setTags,
// setDeletionProtection, attachDisk, detachDisk, add/deleteAccessConfig, updateNetworkInterface),
// zonal and regional bulkInsert, instance templates (global and regional), resource policies and reservations
// (insert, get, list, aggregatedList, delete, resize, update — or seeded by the admin API — with live inUseCount).
//
// Resources are kept in the core store as protojson of the computepb types, so list answers need no re-encoding and
// the wire format is the official Go client's. Every change a VM causes outside its own record (quota usage,
// reservation inUseCount, the capacity ledger of the stockout-after-N fault) is made in the same store transaction
// as the VM change, so a failed operation leaves nothing behind.
//
// Store kinds and keys:
//
//	compute.instances                 projects/P/zones/Z/instances/N          computepb.Instance
//	compute.instanceTemplates         projects/P/global/instanceTemplates/N   computepb.InstanceTemplate
//	compute.regionInstanceTemplates   projects/P/regions/R/instanceTemplates/N
//	compute.resourcePolicies          projects/P/regions/R/resourcePolicies/N computepb.ResourcePolicy
//	compute.guestAttributes           the instance key                        GuestAttributeSet
//	emulator.instanceCharges          the instance or reservation key         Charge (quota and reservation held)
//	emulator.capacity                 ZONE/MACHINETYPE                        Capacity (stockout after N VMs)
//	emulator.hostEvents               the instance key                        HostEvent (a notice in flight)
//	compute.reservations              projects/P/zones/Z/reservations/N       (the compute package's kind)
//
// Admin routes (not counted, never faulted):
//
//	GET  /emulator/v1/capacity                 the capacity ledger: {"capacity":[{zone, machineType, vms}]}
//	POST /emulator/v1/capacity                 {"zone","machineType"(optional),"vms"}: room for vms more VMs (the
//	                                           "stockout after N VMs" fault; vms < 0 removes the entry)
//	POST /emulator/v1/flexStart:provision      retry flex-start VMs waiting in PENDING: {"provisioned": N}
//	GET|POST /emulator/v1/noticeWindows        how long maintenance and preemption notices last (NoticeWindows)
//
// The core's stockout fault (Faults.Stockout) makes every creation in a zone fail; the capacity ledger lets K VMs
// through first, so a bulkInsert succeeds partially or rolls back below minCount.
//
// A local runtime (package vmruntime) may be attached with SetRuntime: VMs that reach RUNNING are then booted as
// hosts, and stop/start/reset/delete are mirrored; without one the emulator is API-only.
package instances
