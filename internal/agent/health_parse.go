package agent

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Parsers of the GPU tools' machine-readable output, the formats documented by NVIDIA (samples and
// their sources in testdata/health).

// gpuQueryFields is what the gpu and ecc checks ask nvidia-smi for, in this order:
// nvidia-smi --query-gpu=index,name,uuid,ecc.errors.uncorrected.volatile.total --format=csv,noheader,nounits
var gpuQueryFields = []string{"index", "name", "uuid", "ecc.errors.uncorrected.volatile.total"}

// gpuRow is one GPU as nvidia-smi's query answers it.
type gpuRow struct {
	Index int
	Name  string
	UUID  string
	// UncorrectedECC is -1 where nvidia-smi answers "[N/A]" (ECC off or unsupported).
	UncorrectedECC int
}

// parseGPUQuery parses `nvidia-smi --query-gpu=<gpuQueryFields> --format=csv,noheader,nounits`.
func parseGPUQuery(out string) ([]gpuRow, error) {
	recs, err := parseGPUCSV(out, len(gpuQueryFields))
	if err != nil {
		return nil, err
	}
	rows := make([]gpuRow, 0, len(recs))
	for _, rec := range recs {
		idx, _ := strconv.Atoi(rec[0])
		g := gpuRow{Index: idx, Name: rec[1], UUID: rec[2], UncorrectedECC: -1}
		if v := rec[3]; !strings.HasPrefix(v, "[") {
			if g.UncorrectedECC, err = strconv.Atoi(v); err != nil {
				return nil, fmt.Errorf("nvidia-smi --query-gpu output: GPU %d: ECC count %q is not a number", idx, v)
			}
		}
		rows = append(rows, g)
	}
	return rows, nil
}

// parseGPUCSV splits `nvidia-smi --query-gpu=... --format=csv,noheader,nounits` into trimmed
// fields, n per GPU, the first of which is the GPU's index.
func parseGPUCSV(out string, n int) ([][]string, error) {
	r := csv.NewReader(strings.NewReader(out))
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = n
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("nvidia-smi --query-gpu output: %w", err)
	}
	for _, rec := range recs {
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		if _, err := strconv.Atoi(rec[0]); err != nil {
			return nil, fmt.Errorf("nvidia-smi --query-gpu output: index %q is not a number", rec[0])
		}
	}
	return recs, nil
}

// xidRE matches the driver's kernel log line for an XID event: "NVRM: Xid (PCI:0000:04:00): 79, pid=...".
var xidRE = regexp.MustCompile(`NVRM: Xid \((PCI:[0-9a-fA-F:.]+)\): (\d+)`)

// xidEvent is one XID from the kernel log.
type xidEvent struct {
	Device string
	XID    int
}

// parseXIDs finds the driver's XID events in kernel log text (dmesg).
func parseXIDs(log string) []xidEvent {
	var out []xidEvent
	for _, m := range xidRE.FindAllStringSubmatch(log, -1) {
		n, _ := strconv.Atoi(m[2])
		out = append(out, xidEvent{Device: m[1], XID: n})
	}
	return out
}

// dcgmResult is one failing or warning test of a `dcgmi diag -r N -j` run.
type dcgmResult struct {
	Category string
	Test     string
	GPUs     string
	Status   string
	Warning  string
}

// parseDCGMDiag parses `dcgmi diag -r N -j` (DCGM 3.x JSON: "DCGM GPU Diagnostic" → test_categories →
// tests → results with status Pass/Fail/Warn/Skip) and returns the results that did not pass or skip.
func parseDCGMDiag(out string) ([]dcgmResult, error) {
	type warning struct {
		Warning string `json:"warning"`
	}
	type result struct {
		GPUIDs   json.RawMessage `json:"gpu_ids"`
		GPUID    json.RawMessage `json:"gpu_id"`
		Status   string          `json:"status"`
		Warnings []warning       `json:"warnings"`
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		return nil, fmt.Errorf("dcgmi diag -j output: %w", err)
	}
	raw, ok := doc["DCGM GPU Diagnostic"]
	if !ok {
		return nil, fmt.Errorf(`dcgmi diag -j output has no "DCGM GPU Diagnostic" object`)
	}
	var diag struct {
		Categories []struct {
			Category string `json:"category"`
			Tests    []struct {
				Name    string   `json:"name"`
				Results []result `json:"results"`
			} `json:"tests"`
		} `json:"test_categories"`
	}
	if err := json.Unmarshal(raw, &diag); err != nil {
		return nil, fmt.Errorf("dcgmi diag -j output: %w", err)
	}
	var bad []dcgmResult
	for _, c := range diag.Categories {
		for _, t := range c.Tests {
			for _, r := range t.Results {
				switch strings.ToLower(r.Status) {
				case "pass", "skip", "":
					continue
				}
				gpus := strings.Trim(string(r.GPUIDs)+string(r.GPUID), `"`)
				res := dcgmResult{Category: c.Category, Test: t.Name, GPUs: gpus, Status: r.Status}
				if len(r.Warnings) > 0 {
					res.Warning = r.Warnings[0].Warning
				}
				bad = append(bad, res)
			}
		}
	}
	return bad, nil
}

// ncclResult is an all_reduce_perf run: the largest message's bus bandwidth and the average.
type ncclResult struct {
	Rows         int
	MaxBusBW     float64 // GB/s, the best out-of-place row
	AvgBusBW     float64 // GB/s, "# Avg bus bandwidth"
	WrongResults int
}

// parseAllReducePerf parses nccl-tests' all_reduce_perf table: data rows are
// "size count type redop root time algbw busbw #wrong time algbw busbw #wrong" (out-of-place, then
// in-place), comments start with "#", and the run ends with "# Avg bus bandwidth : X".
func parseAllReducePerf(out string) (ncclResult, error) {
	var r ncclResult
	avgSeen := false
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "# Avg bus bandwidth"); ok {
			v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ":"))
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return r, fmt.Errorf("all_reduce_perf: average bus bandwidth %q is not a number", v)
			}
			r.AvgBusBW, avgSeen = f, true
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 13 {
			continue
		}
		if _, err := strconv.ParseInt(f[0], 10, 64); err != nil {
			continue
		}
		busbw, err := strconv.ParseFloat(f[7], 64)
		if err != nil {
			return r, fmt.Errorf("all_reduce_perf: busbw %q is not a number", f[7])
		}
		wrong, _ := strconv.Atoi(f[8])
		r.Rows++
		r.WrongResults += wrong
		if busbw > r.MaxBusBW {
			r.MaxBusBW = busbw
		}
	}
	if r.Rows == 0 || !avgSeen {
		return r, fmt.Errorf("all_reduce_perf printed no result table")
	}
	return r, nil
}

// badNodesOfPairs is the NCCL check's second pass: of the pairs that failed, a node failing with
// every partner it was tested with is the bad one; a failing pair whose nodes both pass elsewhere
// names neither.
func badNodesOfPairs(results map[[2]string]bool) []string {
	tested, failed := map[string]int{}, map[string]int{}
	for pair, ok := range results {
		for _, n := range pair {
			tested[n]++
			if !ok {
				failed[n]++
			}
		}
	}
	var bad []string
	for n, f := range failed {
		if f == tested[n] {
			bad = append(bad, n)
		}
	}
	sort.Strings(bad)
	return bad
}

// nvlinkErrorRE matches `nvidia-smi nvlink -e` counter lines: "Link 0: Replay Errors: 0".
var nvlinkErrorRE = regexp.MustCompile(`(?m)^\s*Link (\d+): ([A-Za-z ]+Errors): (\d+)\s*$`)
var nvlinkGPURE = regexp.MustCompile(`(?m)^GPU (\d+):`)

// nvlinkErrors is the worst NVLink error counter per `nvidia-smi nvlink -e`: its GPU, link, kind and count.
type nvlinkErrors struct {
	GPU, Link int
	Kind      string
	Count     int
}

// parseNVLinkErrors parses `nvidia-smi nvlink -e` (one "GPU N: name (UUID: ...)" header per GPU,
// then "Link L: <Kind> Errors: C" lines) and returns the largest counter; ok is false when the
// output lists no counter.
func parseNVLinkErrors(out string) (worst nvlinkErrors, ok bool) {
	for _, c := range nvlinkCounters(out) {
		if !ok || c.Count > worst.Count {
			worst, ok = c, true
		}
	}
	return worst, ok
}

// nvlinkCounters is every counter line of `nvidia-smi nvlink -e`, with its GPU.
func nvlinkCounters(out string) []nvlinkErrors {
	var all []nvlinkErrors
	gpu := -1
	for _, line := range strings.Split(out, "\n") {
		if m := nvlinkGPURE.FindStringSubmatch(line); m != nil {
			gpu, _ = strconv.Atoi(m[1])
			continue
		}
		m := nvlinkErrorRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		link, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[3])
		all = append(all, nvlinkErrors{GPU: gpu, Link: link, Kind: strings.TrimSpace(m[2]), Count: n})
	}
	return all
}
