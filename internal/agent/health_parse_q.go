package agent

import (
	"fmt"
	"strings"
)

// Parser of `nvidia-smi -q` (and `-q -d ECC`, `-q -d ROW_REMAPPER`), the human-readable log: after
// a header of "Key : Value" lines, one "GPU <bus id>" block per GPU whose lines nest by four
// spaces, a line without " : " opening a section. Samples from a real H200 are in
// testdata/health (h200-*).

// gpuMemoryRepair is one GPU's memory repair state as `nvidia-smi -q` prints it. A field the
// driver does not print (older drivers, GPUs without row remapping) or prints as N/A stays false.
type gpuMemoryRepair struct {
	BusID string
	// "Remapped Rows" section.
	RowRemapPending, RowRemapFailure bool
	// "ECC Errors" section.
	ChannelRepairPending, TPCRepairPending, UnrepairableMemory bool
}

// parseNvidiaSMIQ parses `nvidia-smi -q` text into per-GPU values keyed by their section path,
// e.g. "Remapped Rows/Pending" or "ECC Errors/Unrepairable Memory", in the order of the GPUs.
func parseNvidiaSMIQ(out string) (busIDs []string, values []map[string]string, err error) {
	var sections []string // open sections of the current GPU, by depth
	var cur map[string]string
	for _, raw := range strings.Split(out, "\n") {
		line := strings.TrimRight(raw, " \t\r")
		text := strings.TrimLeft(line, " ")
		if text == "" || strings.HasPrefix(text, "=====") {
			continue
		}
		depth := (len(line) - len(text)) / 4
		if depth == 0 {
			if id, ok := strings.CutPrefix(text, "GPU "); ok && !strings.Contains(text, " : ") {
				busIDs = append(busIDs, id)
				cur = map[string]string{}
				values = append(values, cur)
				sections = sections[:0]
			}
			continue // header lines ("Driver Version : ...") are not about one GPU
		}
		if cur == nil {
			return nil, nil, fmt.Errorf("nvidia-smi -q output: %q is indented before any \"GPU <bus id>\" line", text)
		}
		// depth 1 lines sit in the GPU block: the path holds depth-1 parents.
		sections = sections[:min(len(sections), depth-1)]
		key, value, isValue := strings.Cut(text, " : ")
		if !isValue {
			if k, ok := strings.CutSuffix(text, " :"); ok { // an empty value
				key, isValue = k, true
			}
		}
		key = strings.TrimSpace(key)
		if !isValue {
			for len(sections) < depth-1 {
				sections = append(sections, "")
			}
			sections = append(sections, key)
			continue
		}
		cur[strings.Join(append(sections[:len(sections):len(sections)], key), "/")] = strings.TrimSpace(value)
	}
	return busIDs, values, nil
}

// parseMemoryRepair reads the memory repair state of every GPU from `nvidia-smi -q` text; several
// outputs (`-q -d ROW_REMAPPER` and `-q -d ECC`) merge by bus id. It fails on text naming no GPU,
// so a changed format is not a silent pass.
func parseMemoryRepair(outs ...string) ([]gpuMemoryRepair, error) {
	var gpus []gpuMemoryRepair
	at := map[string]int{}
	for _, out := range outs {
		ids, vals, err := parseNvidiaSMIQ(out)
		if err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			return nil, fmt.Errorf("nvidia-smi -q output lists no GPU: %q", firstLine(out))
		}
		for i, id := range ids {
			j, ok := at[id]
			if !ok {
				j = len(gpus)
				at[id] = j
				gpus = append(gpus, gpuMemoryRepair{BusID: id})
			}
			v, g := vals[i], &gpus[j]
			yes := func(k string) bool { return strings.EqualFold(v[k], "Yes") }
			g.RowRemapPending = g.RowRemapPending || yes("Remapped Rows/Pending")
			g.RowRemapFailure = g.RowRemapFailure || yes("Remapped Rows/Remapping Failure Occurred")
			g.ChannelRepairPending = g.ChannelRepairPending || yes("ECC Errors/Channel Repair Pending")
			g.TPCRepairPending = g.TPCRepairPending || yes("ECC Errors/TPC Repair Pending")
			g.UnrepairableMemory = g.UnrepairableMemory || yes("ECC Errors/Unrepairable Memory")
		}
	}
	return gpus, nil
}

// pendingRepair says what a GPU reset would apply, or "".
func (g gpuMemoryRepair) pendingRepair() string {
	var p []string
	if g.RowRemapPending {
		p = append(p, "remapped rows pending")
	}
	if g.ChannelRepairPending {
		p = append(p, "channel repair pending")
	}
	if g.TPCRepairPending {
		p = append(p, "TPC repair pending")
	}
	return strings.Join(p, ", ")
}

// unrepairable says what no reset repairs, or "".
func (g gpuMemoryRepair) unrepairable() string {
	var p []string
	if g.RowRemapFailure {
		p = append(p, "row remapping failure occurred")
	}
	if g.UnrepairableMemory {
		p = append(p, "unrepairable memory")
	}
	return strings.Join(p, ", ")
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
