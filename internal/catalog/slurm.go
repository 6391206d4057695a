package catalog

import "strconv"

// SlurmCPUs is the CPUs= value of the node line: every vCPU (hardware
// thread) is one Slurm CPU, which matches what slurmd detects on Compute
// Engine VMs.
func (m MachineType) SlurmCPUs() int { return m.CPUs }

// Memory kept back from Slurm: 5% of the VM's memory, at least 1 GiB.
//
// Why: MemTotal inside a VM is lower than the nominal machine memory (kernel,
// firmware and, on GPU machines, driver reservations), and the OS, munged,
// slurmd, the agent, mounts' caches and on TCPX/TCPXO machines the
// receive-data-path manager need memory too. If RealMemory exceeds what
// slurmd detects, slurmctld drains the node ("Low RealMemory"), which is one
// of the field's silent bootstrap failures; keeping a margin also stops jobs
// that fill their allocation from driving the node into the OOM killer.
const (
	slurmMemoryReservePercent = 5
	slurmMemoryReserveMinMB   = 1024
)

// SlurmRealMemoryMB is the RealMemory= value of the node line, in MB.
func (m MachineType) SlurmRealMemoryMB() int {
	reserve := max(m.MemoryMB*slurmMemoryReservePercent/100, slurmMemoryReserveMinMB)
	if reserve >= m.MemoryMB {
		return m.MemoryMB / 2
	}
	return m.MemoryMB - reserve
}

// SlurmGres is the Gres= value of the node line ("gpu:h100:8"), or "" for
// machine types without GPUs.
func (m MachineType) SlurmGres() string {
	if !m.HasGPU() {
		return ""
	}
	return "gpu:" + m.GPU.SlurmType + ":" + strconv.Itoa(m.GPU.Count)
}

// Features are the default Slurm node features: family, profile (when it
// differs, e.g. a3-mega), GPU type and architecture, e.g.
// ["a3", "a3-mega", "h100", "x86_64"]. Jobs constrain on them and NodeSets
// select by them.
func (m MachineType) Features() []string {
	f := []string{m.Family}
	if m.Profile != "" && m.Profile != m.Family {
		f = append(f, m.Profile)
	}
	if m.HasGPU() {
		f = append(f, m.GPU.SlurmType)
	}
	return append(f, m.Arch)
}
