package metrics

import "github.com/prometheus/client_golang/prometheus"

// GPU is one GPU as the node's tools report it. Fields the tools did not answer are negative and
// left out of the series.
type GPU struct {
	Index     int
	UUID      string
	ModelName string
	BusID     string
	// UtilPercent is utilization.gpu; FBUsedMiB memory.used; FBFreeMiB memory.free.
	UtilPercent, FBUsedMiB, FBFreeMiB float64
	// ECCDBEVolatile is ecc.errors.uncorrected.volatile.total.
	ECCDBEVolatile float64
	// LastXID is the last XID the driver logged for this GPU (0: none).
	LastXID float64
	// NVLinkReplay, NVLinkRecovery, NVLinkCRC are the error counters summed over the GPU's links.
	NVLinkReplay, NVLinkRecovery, NVLinkCRC float64
}

// The series dcgm-exporter serves (its default counters' names and labels), so dashboards and
// alerts written for it work here.
type gpuMetrics struct {
	util, fbUsed, fbFree, eccDBE, xid       *prometheus.GaugeVec
	nvlinkReplay, nvlinkRecovery, nvlinkCRC *prometheus.GaugeVec
	count                                   prometheus.Gauge
}

var dcgmLabels = []string{"gpu", "UUID", "device", "modelName", "pci_bus_id", "Hostname"}

func newGPUMetrics(reg prometheus.Registerer) gpuMetrics {
	g := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, dcgmLabels)
	}
	m := gpuMetrics{
		util:           g("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %)."),
		fbUsed:         g("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB)."),
		fbFree:         g("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB)."),
		eccDBE:         g("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "Total number of double-bit volatile ECC errors."),
		xid:            g("DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered."),
		nvlinkReplay:   g("DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", "Total number of NVLink retries."),
		nvlinkRecovery: g("DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", "Total number of NVLink recovery errors."),
		nvlinkCRC:      g("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "Total number of NVLink flow-control CRC errors."),
		count: prometheus.NewGauge(prometheus.GaugeOpts{Name: "hypercompute_gpus_visible",
			Help: "GPUs the node's nvidia-smi lists."}),
	}
	reg.MustRegister(m.util, m.fbUsed, m.fbFree, m.eccDBE, m.xid, m.nvlinkReplay, m.nvlinkRecovery, m.nvlinkCRC, m.count)
	return m
}

// SetGPUs replaces this node's GPU series.
func (r *Registry) SetGPUs(hostname string, gpus []GPU) {
	m := &r.gpu
	all := []*prometheus.GaugeVec{m.util, m.fbUsed, m.fbFree, m.eccDBE, m.xid, m.nvlinkReplay, m.nvlinkRecovery, m.nvlinkCRC}
	for _, v := range all {
		v.Reset()
	}
	m.count.Set(float64(len(gpus)))
	for _, g := range gpus {
		l := prometheus.Labels{"gpu": itoa(g.Index), "UUID": g.UUID, "device": "nvidia" + itoa(g.Index),
			"modelName": g.ModelName, "pci_bus_id": g.BusID, "Hostname": hostname}
		vals := []float64{g.UtilPercent, g.FBUsedMiB, g.FBFreeMiB, g.ECCDBEVolatile, g.LastXID, g.NVLinkReplay, g.NVLinkRecovery, g.NVLinkCRC}
		for i, v := range all {
			if vals[i] >= 0 {
				v.With(l).Set(vals[i])
			}
		}
	}
}
