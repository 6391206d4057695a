package slurm

import (
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// preparedSpec is a JobSpec checked and with the defaults every API version
// needs filled in; adapters only map it to their wire shape.
type preparedSpec struct {
	JobSpec
	timeMinutes int64 // 0: unset
	tasks       int   // Nodes*TasksPerNode when both are set, else 0
	signal      *warnSignal
}

func prepareSpec(s JobSpec) (preparedSpec, error) {
	p := preparedSpec{JobSpec: s}
	if !strings.HasPrefix(s.Script, "#!") {
		return p, fmt.Errorf("slurm: job script must start with #! (an interpreter line)")
	}
	for name, v := range map[string]int{"Nodes": s.Nodes, "TasksPerNode": s.TasksPerNode,
		"CPUsPerTask": s.CPUsPerTask, "GPUsPerNode": s.GPUsPerNode} {
		if v < 0 {
			return p, fmt.Errorf("slurm: job %s must not be negative (%d)", name, v)
		}
	}
	if s.TimeLimit < 0 {
		return p, fmt.Errorf("slurm: job TimeLimit must not be negative (%s)", s.TimeLimit)
	}
	if s.TimeLimit > 0 {
		p.timeMinutes = int64((s.TimeLimit + time.Minute - 1) / time.Minute)
	}
	if s.Nodes > 0 && s.TasksPerNode > 0 {
		p.tasks = s.Nodes * s.TasksPerNode
	}
	if p.WorkDir == "" {
		p.WorkDir = "/tmp"
	}
	p.Env = maps.Clone(s.Env)
	if len(p.Env) == 0 {
		p.Env = map[string]string{"PATH": DefaultPath}
	}
	for k := range p.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return p, fmt.Errorf("slurm: bad environment variable name %q", k)
		}
	}
	if s.Signal != "" {
		sig, err := parseSignal(s.Signal)
		if err != nil {
			return p, err
		}
		p.signal = &sig
	}
	return p, nil
}

// warnSignal is sbatch's --signal=[{R|B}:]<sig>[@<seconds>].
type warnSignal struct {
	BatchOnly   bool   // B: only the batch shell gets the signal
	Reservation bool   // R: also at the end of the job's reservation
	Name        string // as given: "USR1", "SIGUSR1" or "10"
	Seconds     int    // before the time limit; sbatch's default is 60
	spec        string // "<sig>@<seconds>" without the prefix
}

var signalRE = regexp.MustCompile(`^(?:([RB]{1,2}):)?((?:SIG)?[A-Z][A-Z0-9+-]*|[0-9]{1,2})(?:@([0-9]+))?$`)

func parseSignal(s string) (warnSignal, error) {
	m := signalRE.FindStringSubmatch(strings.ToUpper(strings.TrimSpace(s)))
	if m == nil {
		return warnSignal{}, fmt.Errorf("slurm: bad signal %q: want [B:]SIGNAL[@SECONDS], e.g. B:USR1@120", s)
	}
	w := warnSignal{Name: m[2], Seconds: 60, BatchOnly: strings.Contains(m[1], "B"),
		Reservation: strings.Contains(m[1], "R")}
	if n, err := strconv.Atoi(m[2]); err == nil && (n < 1 || n > 64) {
		return warnSignal{}, fmt.Errorf("slurm: bad signal number %d in %q", n, s)
	}
	if m[3] != "" {
		n, err := strconv.Atoi(m[3])
		if err != nil || n > 0xffff {
			return warnSignal{}, fmt.Errorf("slurm: bad signal time in %q (at most 65535 s)", s)
		}
		w.Seconds = n
	}
	w.spec = fmt.Sprintf("%s@%d", w.Name, w.Seconds)
	return w, nil
}

// killWarningFlags are the v0.0.39+ names of the B: and R: prefixes.
func (w warnSignal) killWarningFlags() []string {
	var f []string
	if w.BatchOnly {
		f = append(f, "BATCH_JOB")
	}
	if w.Reservation {
		f = append(f, "RESERVATION_JOB")
	}
	return f
}
