package catalog

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// CPU architectures as Compute Engine images and Slurm features name them.
const (
	ArchX86 = "x86_64"
	ArchARM = "arm64"
)

// Host maintenance policies (scheduling.onHostMaintenance).
const (
	MaintenanceMigrate   = "MIGRATE"
	MaintenanceTerminate = "TERMINATE"
)

// Keys of MachineType.Pins. The versions under these keys are released and
// tested together: GPU networking breaks when the driver, the NCCL network
// plugin and the receive-data-path manager drift apart (cluster-toolkit #3032).
const (
	PinDriver     = "nvidia-driver"
	PinNCCLPlugin = "nccl-plugin"
	PinRxDM       = "rxdm"
)

// GPU describes the accelerators attached to one VM of a machine type.
type GPU struct {
	Type      string // Compute accelerator type, e.g. nvidia-h100-80gb
	SlurmType string // GRES type in gres.conf/slurm.conf, e.g. h100
	Count     int    // GPUs per VM
	MemoryGB  int    // memory per GPU
}

// PlacementMode says how a machine type gets its compact placement.
type PlacementMode string

const (
	// PlacementNone: no compact placement policy applies (general purpose, G2).
	PlacementNone PlacementMode = "none"
	// PlacementOptional: the user may ask for a COLLOCATED placement policy.
	PlacementOptional PlacementMode = "optional"
	// PlacementFromReservation: dense reservation blocks decide placement; a
	// placement policy of our own is not used.
	PlacementFromReservation PlacementMode = "reservation"
)

// MaxCompactPlacementVMs is the most VMs one compact placement policy holds
// (gcp-apis.md, bulkInsert section).
const MaxCompactPlacementVMs = 1500

// PlacementRule captures what placement and capacity a machine type needs.
type PlacementRule struct {
	Mode PlacementMode
	// ReservationRecommended: obtaining capacity without a reservation is
	// unreliable for this machine type.
	ReservationRecommended bool
	// ReservationBound: VMs can only be created from a reservation
	// (provisioningModel RESERVATION_BOUND); Spot, flex-start and on-demand
	// are refused.
	ReservationBound bool
	// AcceleratorTopology is the groupPlacementPolicy.gpuTopology the VMs need
	// (e.g. "1x72" for A4X NVL72 domains); empty when none.
	AcceleratorTopology string
	// MaxVMs is the most VMs one placement group may hold; 0 when Mode is none.
	MaxVMs int
}

// MachineType is one Compute Engine machine type with every fact the provider,
// agent and emulator need about it.
type MachineType struct {
	Name   string // e.g. a3-highgpu-8g
	Family string // machine series: a3, a4, a4x, g2, n2, c2, c3, e2
	// Profile distinguishes machine types of one family that behave
	// differently (a3-high, a3-mega, a3-ultra); it equals Family otherwise.
	Profile  string
	CPUs     int // vCPUs (guestCpus)
	MemoryMB int // memoryMb as the machineTypes API reports it (GB × 1024)
	Arch     string
	GPU      *GPU // nil for machine types without GPUs
	// NICStack is the GPU-to-GPU network stack; NICNone for non-GPU and G2.
	NICStack NICStack
	// GPUNICCount is the number of NICs that carry GPU traffic (one per
	// TCPX/TCPXO VPC, or one RDMA NIC per subnet of the RDMA VPC).
	GPUNICCount int
	// MTU is the MTU of the VPCs this machine type's GPU traffic runs on, or
	// the Compute default (1460) for machine types without a GPU NIC stack.
	MTU int
	// NetworkBandwidthGbps is the machine's total network bandwidth (GPU NICs
	// for accelerator-optimized machines, per hardware-and-field.md).
	NetworkBandwidthGbps int
	// LocalSSDGB is the bundled local SSD capacity (0 when none is bundled).
	LocalSSDGB   int
	ImageFamily  string
	ImageProject string
	// Pins holds the driver, NCCL plugin and RxDM versions (keys Pin*)
	// that must be deployed together; nil for machines without GPUs.
	Pins              map[string]string
	Placement         PlacementRule
	OnHostMaintenance string // MIGRATE or TERMINATE
	// SpotCapable: the machine type can run as a Spot VM.
	SpotCapable bool
	// FlexStartCapable: the machine type can be obtained with flex-start
	// (DWS) provisioning.
	FlexStartCapable bool
	// NCCLBusBandwidthGBps is the Cluster Health Scanner's pass threshold for
	// NCCL all_reduce/all_gather bus bandwidth between two nodes; 0 when the
	// machine type has no multi-node GPU network.
	NCCLBusBandwidthGBps float64
	// MaxPersistentDisks is the most persistent disks one VM can attach.
	MaxPersistentDisks int
	// MaxPersistentDisksSizeGB is the most persistent-disk capacity one VM can
	// attach; 0 stands for Compute's usual 263,168 GB (see DiskCapacityLimitGB).
	MaxPersistentDisksSizeGB int
	// SharedCPU: a shared-core machine type (e2-micro, e2-small, e2-medium,
	// f1-micro, g1-small), the API's isSharedCpu.
	SharedCPU bool
	// sharedCore is how the description names the share of a physical core
	// ("1/8 shared physical core"); empty unless SharedCPU.
	sharedCore string
}

// defaultMaxPersistentDisksSizeGB is machineTypes' maximumPersistentDisksSizeGb
// for every machine type that is not a small shared-core one (recorded
// real answers).
const defaultMaxPersistentDisksSizeGB = 263168

// DiskCapacityLimitGB is the machineTypes maximumPersistentDisksSizeGb.
func (m MachineType) DiskCapacityLimitGB() int {
	if m.MaxPersistentDisksSizeGB > 0 {
		return m.MaxPersistentDisksSizeGB
	}
	return defaultMaxPersistentDisksSizeGB
}

// ImageSpaceGB is the machineTypes imageSpaceGb: 10 for the N1 types with
// dedicated cores, 0 for every other type (recorded real answers).
func (m MachineType) ImageSpaceGB() int {
	if m.Family == "n1" && !m.SharedCPU {
		return 10
	}
	return 0
}

// HasGPU reports whether the machine type carries GPUs.
func (m MachineType) HasGPU() bool { return m.GPU != nil && m.GPU.Count > 0 }

// SecureBootByDefault says whether Shielded VM nodes of this machine type boot with Secure Boot. GPU
// machines do not: their NVIDIA kernel modules are commonly built on the node (DKMS) and unsigned, and
// Secure Boot refuses to load unsigned modules, so such a node would never run a GPU job; vTPM and
// integrity monitoring apply to every machine type.
func (m MachineType) SecureBootByDefault() bool { return !m.HasGPU() }

// GPUCount is the number of GPUs per VM (0 without GPUs).
func (m MachineType) GPUCount() int {
	if m.GPU == nil {
		return 0
	}
	return m.GPU.Count
}

// MemoryGB is the memory in Compute Engine's GB (GiB) units.
func (m MachineType) MemoryGB() float64 { return float64(m.MemoryMB) / 1024 }

// Description is the text the machineTypes API puts in "description". The
// wording differs by series as recorded real answers show it: "1 vCPU, 3.75
// GB RAM" (N1, T2D, most), "2 vCPUs 8 GB RAM" (N2, N2D), "Compute
// Optimized: 4 vCPUs, 16 GB RAM" (C2), "Efficient Instance, 2 vCPUs, 8 GB
// RAM" (E2), and "2 vCPU (1/8 shared physical core) and 1 GB RAM" for the
// shared-core types.
func (m MachineType) Description() string {
	cpus := fmt.Sprintf("%d vCPUs", m.CPUs)
	if m.CPUs == 1 {
		cpus = "1 vCPU"
	}
	var d string
	switch {
	case m.SharedCPU:
		d = fmt.Sprintf("%d vCPU (%s) and %s GB RAM", m.CPUs, m.sharedCore, formatGB(m.MemoryMB))
	case m.Family == "n2" || m.Family == "n2d":
		d = fmt.Sprintf("%s %s GB RAM", cpus, formatGB(m.MemoryMB))
	default:
		d = fmt.Sprintf("%s, %s GB RAM", cpus, formatGB(m.MemoryMB))
	}
	switch m.Family {
	case "e2":
		d = "Efficient Instance, " + d
	case "c2":
		d = "Compute Optimized: " + d
	}
	if m.HasGPU() {
		d += fmt.Sprintf(", %d %s GPUs", m.GPU.Count, strings.ToUpper(m.GPU.SlurmType))
	}
	return d
}

func formatGB(mb int) string {
	if mb%1024 == 0 {
		return fmt.Sprintf("%d", mb/1024)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", float64(mb)/1024), "0"), ".")
}

func (m MachineType) clone() MachineType {
	c := m
	if m.GPU != nil {
		g := *m.GPU
		c.GPU = &g
	}
	c.Pins = maps.Clone(m.Pins)
	return c
}

var (
	machineList  = buildMachines()
	machineIndex = indexMachines(machineList)
)

func buildMachines() []MachineType {
	var all []MachineType
	all = append(all, acceleratorMachines()...)
	all = append(all, g2Machines()...)
	all = append(all, generalPurposeMachines()...)
	all = append(all, seriesMachines()...)
	all = append(all, sharedCoreMachines()...)
	all = append(all, a2Machines()...)
	all = append(all, g4Machines()...)
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all
}

func indexMachines(list []MachineType) map[string]int {
	idx := make(map[string]int, len(list))
	for i, m := range list {
		if _, dup := idx[m.Name]; dup {
			panic("catalog: duplicate machine type " + m.Name)
		}
		idx[m.Name] = i
	}
	return idx
}

// Machines returns every machine type in the catalog, sorted by name.
func Machines() []MachineType {
	out := make([]MachineType, len(machineList))
	for i, m := range machineList {
		out[i] = m.clone()
	}
	return out
}

// Machine looks a machine type up by its Compute Engine name.
func Machine(name string) (MachineType, bool) {
	i, ok := machineIndex[name]
	if !ok {
		return MachineType{}, false
	}
	return machineList[i].clone(), true
}

// MachineTypeNames returns every machine type name, sorted.
func MachineTypeNames() []string {
	names := make([]string, len(machineList))
	for i, m := range machineList {
		names[i] = m.Name
	}
	return names
}

// GPUMachineTypeNames returns the names of machine types that carry GPUs.
func GPUMachineTypeNames() []string {
	var names []string
	for _, m := range machineList {
		if m.HasGPU() {
			names = append(names, m.Name)
		}
	}
	return names
}

// ValidateMachineType returns a user-facing error for an unknown machine type,
// suggesting names of the same family when there are any.
func ValidateMachineType(name string) error {
	if _, ok := machineIndex[name]; ok {
		return nil
	}
	// Suggest the family's types ("n9-" → none, "a3-" → a3-*), or, for a family too large to list (n1, c4),
	// the types of the same shape ("n1-standard-3" → n1-standard-*).
	similar := func(prefix string) []string {
		var out []string
		for _, n := range MachineTypeNames() {
			if strings.HasPrefix(n, prefix) {
				out = append(out, n)
			}
		}
		return out
	}
	if i := strings.Index(name, "-"); i > 0 {
		if fam := similar(name[:i+1]); len(fam) > 0 && len(fam) <= 12 {
			return fmt.Errorf("machine type %q is not known; machine types of this family: %s", name, strings.Join(fam, ", "))
		}
	}
	if i := strings.LastIndex(name, "-"); i > 0 {
		if shape := similar(name[:i+1]); len(shape) > 0 && len(shape) <= 12 {
			return fmt.Errorf("machine type %q is not known; machine types of this shape: %s", name, strings.Join(shape, ", "))
		}
	}
	return fmt.Errorf("machine type %q is not known (see the provider documentation for the supported machine types)", name)
}

// AcceleratorType is one entry of the acceleratorTypes API.
type AcceleratorType struct {
	Name                    string // e.g. nvidia-h100-80gb
	Description             string
	MaximumCardsPerInstance int
}

// AcceleratorTypes lists the GPU types of the catalog's machine types, with
// the most cards one VM can carry, sorted by name.
func AcceleratorTypes() []AcceleratorType {
	byName := map[string]AcceleratorType{}
	for _, m := range machineList {
		if !m.HasGPU() {
			continue
		}
		a := byName[m.GPU.Type]
		a.Name = m.GPU.Type
		a.Description = acceleratorDescriptions[m.GPU.Type]
		a.MaximumCardsPerInstance = max(a.MaximumCardsPerInstance, m.GPU.Count)
		byName[m.GPU.Type] = a
	}
	names := slices.Sorted(maps.Keys(byName))
	out := make([]AcceleratorType, 0, len(names))
	for _, n := range names {
		out = append(out, byName[n])
	}
	return out
}

// Descriptions as the acceleratorTypes API words them (public Compute docs).
var acceleratorDescriptions = map[string]string{
	"nvidia-h100-80gb":      "NVIDIA H100 80GB",
	"nvidia-h100-mega-80gb": "NVIDIA H100 80GB MEGA",
	"nvidia-h200-141gb":     "NVIDIA H200 141GB",
	"nvidia-b200":           "NVIDIA B200",
	"nvidia-gb200":          "NVIDIA GB200",
	"nvidia-l4":             "NVIDIA L4",
	"nvidia-tesla-a100":     "NVIDIA A100 40GB",
	"nvidia-a100-80gb":      "NVIDIA A100 80GB",
	"nvidia-rtx-pro-6000":   "NVIDIA RTX PRO 6000",
}
