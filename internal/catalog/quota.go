package catalog

import "slices"

// Regional Compute Engine quota metrics this catalog charges VMs against.
// Names are the real metric names (compute-api.json Quota.metric, and the
// public allocation-quota docs for the GPU metrics newer than that enum).
const (
	QuotaCPUs            = "CPUS"
	QuotaPreemptibleCPUs = "PREEMPTIBLE_CPUS"
	QuotaN2CPUs          = "N2_CPUS"
	QuotaC2CPUs          = "C2_CPUS"
	QuotaC3CPUs          = "C3_CPUS"
	QuotaInstances       = "INSTANCES"
)

// Family-specific vCPU metrics. Families not listed (E2, G2, A3, A4, A4X)
// count against the generic CPUS metric; for the accelerator families the GPU
// metric is what actually limits capacity. That split follows the public
// allocation-quota docs as we understand them and is an approximation for
// E2/G2/A-series.
var familyCPUQuota = map[string]string{
	"n2": QuotaN2CPUs,
	"c2": QuotaC2CPUs,
	"c3": QuotaC3CPUs,
}

// GPU quota metric per accelerator type.
var gpuQuota = map[string]string{
	"nvidia-h100-80gb":      "NVIDIA_H100_GPUS",
	"nvidia-h100-mega-80gb": "NVIDIA_H100_MEGA_GPUS",
	"nvidia-h200-141gb":     "NVIDIA_H200_GPUS",
	"nvidia-b200":           "NVIDIA_B200_GPUS",
	"nvidia-gb200":          "NVIDIA_GB200_GPUS",
	"nvidia-l4":             "NVIDIA_L4_GPUS",
	"nvidia-tesla-a100":     "NVIDIA_A100_GPUS",
	"nvidia-a100-80gb":      "NVIDIA_A100_80GB_GPUS",
	"nvidia-rtx-pro-6000":   "NVIDIA_RTX_PRO_6000_GPUS",
}

// CPUQuotaMetric is the regional vCPU metric the machine type's VMs use.
func (m MachineType) CPUQuotaMetric() string {
	if q, ok := familyCPUQuota[m.Family]; ok {
		return q
	}
	return QuotaCPUs
}

// GPUQuotaMetric is the regional GPU metric, or "" without GPUs.
func (m MachineType) GPUQuotaMetric() string {
	if !m.HasGPU() {
		return ""
	}
	return gpuQuota[m.GPU.Type]
}

// QuotaMetrics is what one standard (on-demand or reserved) VM of this
// machine type consumes, by regional quota metric.
func (m MachineType) QuotaMetrics() map[string]float64 {
	q := map[string]float64{
		m.CPUQuotaMetric(): float64(m.CPUs),
		QuotaInstances:     1,
	}
	if g := m.GPUQuotaMetric(); g != "" {
		q[g] = float64(m.GPU.Count)
	}
	return q
}

// SpotQuotaMetrics is what one Spot VM consumes: Compute charges Spot VMs to
// the PREEMPTIBLE_* metrics (when the project has preemptible quota).
func (m MachineType) SpotQuotaMetrics() map[string]float64 {
	q := map[string]float64{
		QuotaPreemptibleCPUs: float64(m.CPUs),
		QuotaInstances:       1,
	}
	if g := m.GPUQuotaMetric(); g != "" {
		q["PREEMPTIBLE_"+g] = float64(m.GPU.Count)
	}
	return q
}

// QuotaMetricNames lists every metric QuotaMetrics or SpotQuotaMetrics can
// return, for emulators and docs.
func QuotaMetricNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range machineList {
		for _, set := range []map[string]float64{m.QuotaMetrics(), m.SpotQuotaMetrics()} {
			for k := range set {
				if !seen[k] {
					seen[k] = true
					out = append(out, k)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
