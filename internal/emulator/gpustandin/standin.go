// Package gpustandin renders the GPU tools of local-runtime VMs whose machine type has GPUs:
// nvidia-smi, dcgmi and nccl-tests' all_reduce_perf, as POSIX shell scripts that print the real
// tools' documented machine-readable formats for the machine type's GPUs (count, model and memory
// from internal/catalog) and, when told, report a fault. They are the only stand-ins the project
// allows, since no GPU exists here; the agent's health checks run them exactly as they run the
// real tools.
package gpustandin

import (
	"fmt"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// Fault is what the stand-ins report, as a failing GPU would.
type Fault struct {
	// UncorrectedECC volatile ECC errors on GPU 0 (nvidia-smi, and dcgmi's memory test fails).
	UncorrectedECC int `json:"uncorrectedEcc,omitempty"`
	// MissingGPUs fell off the bus: nvidia-smi lists that many fewer.
	MissingGPUs int `json:"missingGpus,omitempty"`
	// NVLinkErrors: replay errors on GPU 0's link 0 (nvidia-smi nvlink -e).
	NVLinkErrors int `json:"nvlinkErrors,omitempty"`
	// BusBandwidthGBps replaces all_reduce_perf's bus bandwidth (0: the healthy figure).
	BusBandwidthGBps float64 `json:"busBandwidthGBps,omitempty"`
	// DCGMFail fails dcgmi diag's memory test on GPU 0.
	DCGMFail bool `json:"dcgmFail,omitempty"`
	// RemappedRowsPending: GPU 0 has remapped rows a GPU reset applies (nvidia-smi -q's
	// "Remapped Rows: Pending: Yes").
	RemappedRowsPending bool `json:"remappedRowsPending,omitempty"`
	// RemappingFailure: GPU 0 ran out of spare rows ("Remapping Failure Occurred: Yes").
	RemappingFailure bool `json:"remappingFailure,omitempty"`
	// UnrepairableMemory: GPU 0's memory cannot be repaired (-q -d ECC's "Unrepairable Memory: Yes").
	UnrepairableMemory bool `json:"unrepairableMemory,omitempty"`
}

// Tool names, as the agent looks them up on PATH.
const (
	NvidiaSMI     = "nvidia-smi"
	DCGMI         = "dcgmi"
	AllReducePerf = "all_reduce_perf"
)

// productNames are nvidia-smi's names for the catalog's accelerator types.
var productNames = map[string]string{
	"nvidia-h100-80gb":      "NVIDIA H100 80GB HBM3",
	"nvidia-h100-mega-80gb": "NVIDIA H100 80GB HBM3",
	"nvidia-h200-141gb":     "NVIDIA H200",
	"nvidia-b200":           "NVIDIA B200",
	"nvidia-gb200":          "NVIDIA GB200",
	"nvidia-l4":             "NVIDIA L4",
	"nvidia-tesla-a100":     "NVIDIA A100-SXM4-40GB",
	"nvidia-a100-80gb":      "NVIDIA A100-SXM4-80GB",
}

// CheckFault refuses a fault the machine type's GPUs cannot show: NVLink errors where its GPUs have
// no NVLink peers (the stand-in prints no links there, so the fault would go unseen).
func CheckFault(machineType string, f Fault) error {
	m, found := catalog.Machine(machineType)
	if found && m.HasGPU() && f.NVLinkErrors > 0 && !nvlinkPeers(m) {
		return fmt.Errorf("machine type %s has no NVLink peers (nvidia-smi nvlink -e lists no links), so nvlinkErrors cannot show", machineType)
	}
	return nil
}

// Tools renders the stand-ins for a machine type; ok is false for machine types without GPUs.
// seed makes the GPU UUIDs of one VM differ from another's.
func Tools(machineType, seed string, f Fault) (tools map[string][]byte, ok bool) {
	m, found := catalog.Machine(machineType)
	if !found || !m.HasGPU() {
		return nil, false
	}
	name := productNames[m.GPU.Type]
	if name == "" {
		name = "NVIDIA " + strings.ToUpper(m.GPU.SlurmType)
	}
	visible := max(0, m.GPU.Count-f.MissingGPUs)
	busbw := f.BusBandwidthGBps
	if busbw == 0 {
		// A healthy pair clears the Cluster Health Scanner's threshold with margin.
		busbw = max(m.NCCLBusBandwidthGBps, 20) * 1.25
	}
	return map[string][]byte{
		NvidiaSMI:     []byte(nvidiaSMI(name, seed, visible, m.GPU.MemoryGB*1024*1019/1024, nvlinkPeers(m), f)),
		DCGMI:         []byte(dcgmi(visible, f)),
		AllReducePerf: []byte(allReducePerf(name, visible, busbw)),
	}, true
}

// nvlinkPeers: the machine type's GPUs are joined by NVLink. An L4 has none and a lone GPU no peer;
// there nvidia-smi nvlink -e prints nothing (measured on a single-GPU H200 VM).
func nvlinkPeers(m catalog.MachineType) bool {
	return m.GPU.Count > 1 && m.GPU.Type != "nvidia-l4"
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

func uuid(seed string, i int) string {
	h := uint32(2166136261)
	for _, c := range seed {
		h = (h ^ uint32(c)) * 16777619
	}
	return fmt.Sprintf("GPU-%08x-%04x-4%03x-8%03x-%012x", h, i, i, i, uint64(h)*uint64(i+1))
}

// nvidiaSMI answers `--query-gpu=F,... --format=csv[,noheader][,nounits]` for the fields the
// health checks and operators use, `-L`, `nvlink -e` (nothing without NVLink peers), `-q -x` (the
// XML log's GPU count, product names and ECC totals) and `-q [-d ECC|ROW_REMAPPER]` (the text
// log's ECC and Remapped Rows sections, laid out as driver 580 on an H200 prints them); anything
// else fails as nvidia-smi does on a bad argument.
func nvidiaSMI(name, seed string, n, memMiB int, nvlinks bool, f Fault) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# hypercompute local cloud: nvidia-smi stand-in (no GPU exists on this machine).\n")
	fmt.Fprintf(&b, "N=%d\nNAME='%s'\nMEM=%d\nECC0=%d\nNVL0=%d\nNVLINKS=%d\n", n, name, memMiB, f.UncorrectedECC, f.NVLinkErrors, map[bool]int{true: 1}[nvlinks])
	// The remap counters follow the fault: a pending remap or a failed one came from an uncorrectable error.
	remapUE := 0
	if f.RemappedRowsPending || f.RemappingFailure {
		remapUE = 1
	}
	fmt.Fprintf(&b, "PEND0=%s\nRFAIL0=%s\nUNREP0=%s\nRUE0=%d\n", yesNo(f.RemappedRowsPending), yesNo(f.RemappingFailure), yesNo(f.UnrepairableMemory), remapUE)
	b.WriteString("uuid() {\n  case $1 in\n")
	for i := range n {
		fmt.Fprintf(&b, "  %d) echo %s ;;\n", i, uuid(seed, i))
	}
	b.WriteString("  esac\n}\n")
	b.WriteString(`ecc() { if [ "$1" = 0 ]; then echo $ECC0; else echo 0; fi; }
busid() { printf '00000000:%02X:00.0' $(( $1 + 4 )); }
if [ "$N" = 0 ]; then
  echo "No devices were found"; exit 6
fi
case "$1" in
--query-gpu=*)
  fields=${1#--query-gpu=}; fmt=$2
  case "$fmt" in --format=csv*) ;; *) echo "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help." >&2; exit 2 ;; esac
  units=1; header=1
  case "$fmt" in *nounits*) units=0 ;; esac
  case "$fmt" in *noheader*) header=0 ;; esac
  if [ $header = 1 ]; then
    h=""
    for f in $(echo "$fields" | tr ',' ' '); do
      case $f in memory.total|memory.free|memory.used) [ $units = 1 ] && f="$f [MiB]" ;; utilization.gpu) [ $units = 1 ] && f="$f [%]" ;; esac
      h="$h${h:+, }$f"
    done
    echo "$h"
  fi
  g=0
  while [ $g -lt $N ]; do
    line=""
    for f in $(echo "$fields" | tr ',' ' '); do
      case $f in
      index) v=$g ;;
      name) v=$NAME ;;
      uuid) v=$(uuid $g) ;;
      count) v=$N ;;
      pci.bus_id) v=$(busid $g) ;;
      memory.total) v=$MEM; [ $units = 1 ] && v="$v MiB" ;;
      memory.free) v=$MEM; [ $units = 1 ] && v="$v MiB" ;;
      memory.used) v=0; [ $units = 1 ] && v="$v MiB" ;;
      utilization.gpu) v=0; [ $units = 1 ] && v="$v %" ;;
      ecc.mode.current) v=Enabled ;;
      ecc.errors.uncorrected.volatile.total|ecc.errors.uncorrected.aggregate.total) v=$(ecc $g) ;;
      ecc.errors.corrected.volatile.total) v=0 ;;
      *) echo "Field \"$f\" is not a valid field to query." >&2; exit 2 ;;
      esac
      line="$line${line:+, }$v"
    done
    echo "$line"
    g=$((g+1))
  done ;;
-L)
  g=0; while [ $g -lt $N ]; do echo "GPU $g: $NAME (UUID: $(uuid $g))"; g=$((g+1)); done ;;
nvlink)
  [ "$2" = -e ] || { echo "Invalid combination of input arguments." >&2; exit 2; }
  [ "$NVLINKS" = 1 ] || exit 0
  g=0
  while [ $g -lt $N ]; do
    echo "GPU $g: $NAME (UUID: $(uuid $g))"
    for l in 0 1 2 3; do
      r=0; [ $g = 0 ] && [ $l = 0 ] && r=$NVL0
      printf '\t Link %d: Replay Errors: %d\n\t Link %d: Recovery Errors: 0\n\t Link %d: CRC Errors: 0\n' $l $r $l $l
    done
    g=$((g+1))
  done ;;
-q)
  if [ "$2" != -x ]; then
    case "$2 $3" in
    " ") show="ecc remap"; full=1 ;;
    "-d ECC") show=ecc; full=0 ;;
    "-d ROW_REMAPPER") show=remap; full=0 ;;
    *) echo "Only -q, -q -x, -q -d ECC and -q -d ROW_REMAPPER are answered by this stand-in." >&2; exit 2 ;;
    esac
    kv() { printf '%-55s: %s\n' "$1" "$2"; }
    g0() { if [ "$1" = 0 ]; then echo "$2"; else echo "$3"; fi; }
    echo; echo "==============NVSMI LOG=============="; echo
    kv "Timestamp" "$(date '+%a %b %e %H:%M:%S %Y')"
    kv "Driver Version" "580.159.04"
    kv "CUDA Version" "13.0"
    echo; kv "Attached GPUs" "$N"
    g=0
    while [ $g -lt $N ]; do
      echo "GPU $(busid $g)"
      if [ $full = 1 ]; then kv "    Product Name" "$NAME"; kv "    GPU UUID" "$(uuid $g)"; fi
      case $show in *ecc*)
        echo "    ECC Mode"; kv "        Current" Enabled; kv "        Pending" Enabled
        echo "    ECC Errors"
        for scope in Volatile Aggregate; do
          echo "        $scope"
          kv "            SRAM Correctable" 0; kv "            SRAM Uncorrectable Parity" 0; kv "            SRAM Uncorrectable SEC-DED" 0
          kv "            DRAM Correctable" 0; kv "            DRAM Uncorrectable" "$(ecc $g)"
        done
        kv "            SRAM Threshold Exceeded" No
        echo "        Aggregate Uncorrectable SRAM Sources"
        for s in L2 SM Microcontroller PCIE Other; do kv "            SRAM $s" 0; done
        kv "        Channel Repair Pending" No
        kv "        TPC Repair Pending" No
        kv "        Unrepairable Memory" "$(g0 $g $UNREP0 No)" ;;
      esac
      case $show in *remap*)
        echo "    Remapped Rows"
        kv "        Correctable Error" 0; kv "        Inactive Correctable Error" 0
        kv "        Uncorrectable Error" "$(g0 $g $RUE0 0)"; kv "        Inactive Uncorrectable Error" 0
        kv "        Pending" "$(g0 $g $PEND0 No)"
        kv "        Remapping Failure Occurred" "$(g0 $g $RFAIL0 No)"
        echo "        Bank Remap Availability Histogram"
        kv "            Max" "$(g0 $g $([ $RFAIL0 = Yes ] && echo 0 || echo 3072) 3072) bank(s)"
        kv "            High" "0 bank(s)"; kv "            Partial" "0 bank(s)"; kv "            Low" "0 bank(s)"
        kv "            None" "$(g0 $g $([ $RFAIL0 = Yes ] && echo 3072 || echo 0) 0) bank(s)" ;;
      esac
      echo
      g=$((g+1))
    done
    exit 0
  fi
  echo '<?xml version="1.0" ?>'
  echo '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">'
  echo '<nvidia_smi_log>'
  echo "  <attached_gpus>$N</attached_gpus>"
  g=0
  while [ $g -lt $N ]; do
    echo "  <gpu id=\"$(busid $g)\">"
    echo "    <product_name>$NAME</product_name>"
    echo "    <uuid>$(uuid $g)</uuid>"
    echo "    <fb_memory_usage><total>$MEM MiB</total></fb_memory_usage>"
    echo "    <ecc_mode><current_ecc>Enabled</current_ecc></ecc_mode>"
    echo "    <ecc_errors><volatile><sram_uncorrectable>0</sram_uncorrectable><dram_uncorrectable>$(ecc $g)</dram_uncorrectable></volatile></ecc_errors>"
    echo "  </gpu>"
    g=$((g+1))
  done
  echo '</nvidia_smi_log>' ;;
*)
  echo "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help." >&2; exit 2 ;;
esac
`)
	return b.String()
}

// dcgmi answers `diag -r LEVEL -j` with DCGM 3.x's JSON: Deployment tests pass, and the
// Hardware category's GPU Memory test per GPU, failing on GPU 0 under a fault.
func dcgmi(n int, f Fault) string {
	fail := f.DCGMFail || f.UncorrectedECC > 0
	var res []string
	for g := range n {
		if g == 0 && fail {
			res = append(res, `{"gpu_ids": "0", "status": "Fail", "warnings": [{"error_id": 83, "warning": "Detected uncorrectable ECC errors on GPU 0"}]}`)
			continue
		}
		res = append(res, fmt.Sprintf(`{"gpu_ids": "%d", "status": "Pass"}`, g))
	}
	rc := 0
	if fail {
		rc = 226 // dcgmi's DCGM_ST_NVVS_ERROR exit status
	}
	return fmt.Sprintf(`#!/bin/sh
# hypercompute local cloud: dcgmi stand-in (no GPU exists on this machine).
[ "$1" = diag ] || { echo "Usage: dcgmi diag -r <level> -j" >&2; exit 1; }
level=1
while [ $# -gt 0 ]; do case "$1" in -r) level=$2; shift ;; esac; shift; done
case $level in 1|2|3|4) ;; *) echo "Error: invalid run level $level" >&2; exit 1 ;; esac
cat <<'JSON'
{"DCGM GPU Diagnostic": {"test_categories": [
  {"category": "Deployment", "tests": [{"name": "Denylist", "results": [{"status": "Pass"}]}, {"name": "NVML Library", "results": [{"status": "Pass"}]}]},
  {"category": "Hardware", "tests": [{"name": "GPU Memory", "results": [%s]}]}
]}, "version": "3.3.5"}
JSON
exit %d
`, strings.Join(res, ", "), rc)
}

// allReducePerf prints nccl-tests' all_reduce_perf table: out-of-place and in-place columns for
// four message sizes ending at the given bus bandwidth, and the average.
func allReducePerf(name string, n int, busbw float64) string {
	var rows strings.Builder
	sum := 0.0
	for i, size := range []int64{8 << 20, 16 << 20, 32 << 20, 64 << 20} {
		bw := busbw * (0.7 + 0.1*float64(i))
		sum += bw
		factor := 2 * float64(max(n, 2)-1) / float64(max(n, 2))
		algbw := bw / factor
		us := float64(size) / (algbw * 1e3)
		fmt.Fprintf(&rows, "%12d  %12d     float     sum      -1  %7.1f  %6.2f  %6.2f      0  %7.1f  %6.2f  %6.2f      0\n", size, size/4, us, algbw, bw, us, algbw, bw)
	}
	return fmt.Sprintf(`#!/bin/sh
# hypercompute local cloud: nccl-tests all_reduce_perf stand-in (no GPU exists on this machine).
[ %d -gt 0 ] || { echo "NCCL failure common.cu:1024 'unhandled cuda error'"; exit 1; }
cat <<'TABLE'
# nThread 1 nGpus %d minBytes 8388608 maxBytes 67108864 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid      1 on localhost device  0 [0x04] %s
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
%s# Out of bounds values : 0 OK
# Avg bus bandwidth    : %.4f
#
TABLE
`, n, n, name, rows.String(), sum/4)
}
