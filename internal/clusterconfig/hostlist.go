package clusterconfig

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxHostlistNodes bounds what ExpandHostlist returns, so a typo such as
// "n-[0-99999999]" fails instead of allocating without end.
const MaxHostlistNodes = 100000

// ExpandHostlist expands a Slurm hostlist expression as slurmctld passes it
// to ResumeProgram and SuspendProgram: comma-separated entries, each a name
// or a prefix with one bracketed range list at its end, e.g.
// "c-a3-[0-3,7],c-cpu-2", as Slurm 22.05 reads them (its hostlist takes no
// suffix after the range).
// Zero padding in ranges ("[001-010]") is kept. Order follows the
// expression; duplicates are dropped.
func ExpandHostlist(expr string) ([]string, error) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return nil, nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(n string) error {
		if !seen[n] {
			if len(out) >= MaxHostlistNodes {
				return fmt.Errorf("hostlist %q names more than %d nodes", expr, MaxHostlistNodes)
			}
			seen[n] = true
			out = append(out, n)
		}
		return nil
	}
	for _, entry := range splitHostlist(expr) {
		open := strings.IndexByte(entry, '[')
		if open < 0 {
			if entry == "" || strings.ContainsAny(entry, "]") {
				return nil, fmt.Errorf("hostlist %q: bad entry %q", expr, entry)
			}
			if err := add(entry); err != nil {
				return nil, err
			}
			continue
		}
		end := strings.IndexByte(entry, ']')
		if end < open {
			return nil, fmt.Errorf("hostlist %q: unbalanced brackets in %q", expr, entry)
		}
		prefix, ranges, suffix := entry[:open], entry[open+1:end], entry[end+1:]
		if suffix != "" {
			// Slurm 22.05's hostlist takes nothing after the range ("n[1-2]x" is invalid to
			// scontrol show hostnames), nor a second range.
			return nil, fmt.Errorf("hostlist %q: %q has text after its bracketed range, which Slurm does not accept", expr, entry)
		}
		for _, r := range strings.Split(ranges, ",") {
			lo, hi, found := strings.Cut(r, "-")
			if !found {
				hi = lo
			}
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil || a < 0 || b < a {
				return nil, fmt.Errorf("hostlist %q: bad range %q", expr, r)
			}
			if b-a >= MaxHostlistNodes {
				return nil, fmt.Errorf("hostlist %q names more than %d nodes", expr, MaxHostlistNodes)
			}
			width := 0
			if len(lo) > 1 && lo[0] == '0' {
				width = len(lo)
			}
			for i := a; i <= b; i++ {
				if err := add(prefix + fmt.Sprintf("%0*d", width, i) + suffix); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// splitHostlist splits on the commas outside brackets.
func splitHostlist(expr string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(expr); i++ {
		switch expr[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(expr[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(expr[start:]))
}

// CompressHostlist writes node names as a short Slurm hostlist: names that
// end in a number (without zero padding) are grouped by the text before it
// into ranges, e.g. ["p-0","p-1","p-2","p-7","p-d0","p-d1","q"] →
// "p-[0-2,7],p-d[0-1],q". Stems are sorted, so equal sets always give equal
// strings.
func CompressHostlist(names []string) string {
	byStem := map[string][]int{}
	var plain []string
	for _, n := range names {
		num := n[len(strings.TrimRight(n, "0123456789")):]
		stem := n[:len(n)-len(num)]
		v, err := strconv.Atoi(num)
		if stem == "" || err != nil || v < 0 || strconv.Itoa(v) != num {
			plain = append(plain, n)
			continue
		}
		byStem[stem] = append(byStem[stem], v)
	}
	var parts []string
	for _, stem := range sortedKeys(byStem) {
		idx := slices.Compact(slices.Sorted(slices.Values(byStem[stem])))
		if len(idx) == 1 {
			parts = append(parts, stem+strconv.Itoa(idx[0]))
			continue
		}
		var ranges []string
		for start := 0; start < len(idx); {
			end := start
			for end+1 < len(idx) && idx[end+1] == idx[end]+1 {
				end++
			}
			if end == start {
				ranges = append(ranges, strconv.Itoa(idx[start]))
			} else {
				ranges = append(ranges, fmt.Sprintf("%d-%d", idx[start], idx[end]))
			}
			start = end + 1
		}
		parts = append(parts, stem+"["+strings.Join(ranges, ",")+"]")
	}
	slices.Sort(plain)
	return strings.Join(append(parts, slices.Compact(plain)...), ",")
}
