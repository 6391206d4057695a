package slurm

import (
	"encoding/json"
	"strconv"
	"strings"
)

// v0.0.38: Slurm 22.05 (Debian 12). Plain numbers (null when unset), one
// state string per job, lower-case node states plus state_flags, the job
// environment as an object, raw wait statuses as exit codes, and no node
// updates.

func init() { register(v0038{}) }

type v0038 struct{}

func (v0038) version() string { return "v0.0.38" }

type v38Submit struct {
	Script string       `json:"script"`
	Job    v38JobSubmit `json:"job"`
}

type v38JobSubmit struct {
	Name         string            `json:"name,omitempty"`
	Partition    string            `json:"partition,omitempty"`
	Nodes        []int             `json:"nodes,omitempty"` // [min, max]
	Tasks        int               `json:"tasks,omitempty"`
	TasksPerNode int               `json:"tasks_per_node,omitempty"`
	CPUsPerTask  int               `json:"cpus_per_task,omitempty"`
	GPUsPerNode  string            `json:"gpus_per_node,omitempty"`
	Constraints  string            `json:"constraints,omitempty"`
	TimeLimit    int64             `json:"time_limit,omitempty"` // minutes
	WorkDir      string            `json:"current_working_directory"`
	StdOut       string            `json:"standard_output,omitempty"`
	StdErr       string            `json:"standard_error,omitempty"`
	Environment  map[string]string `json:"environment"`
	Requeue      bool              `json:"requeue"`
	Signal       string            `json:"signal,omitempty"`
	Dependency   string            `json:"dependency,omitempty"`
}

func (a v0038) submitBody(p preparedSpec) (any, error) {
	j := v38JobSubmit{
		Name: p.Name, Partition: p.Partition, Tasks: p.tasks, TasksPerNode: p.TasksPerNode,
		CPUsPerTask: p.CPUsPerTask, Constraints: p.Constraints, TimeLimit: p.timeMinutes,
		WorkDir: p.WorkDir, StdOut: p.StdOut, StdErr: p.StdErr, Environment: p.Env,
		Requeue: p.Requeue, Dependency: p.Dependency,
	}
	if p.Nodes > 0 {
		j.Nodes = []int{p.Nodes, p.Nodes}
	}
	if p.GPUsPerNode > 0 {
		j.GPUsPerNode = strconv.Itoa(p.GPUsPerNode)
	}
	if s := p.signal; s != nil {
		if s.BatchOnly || s.Reservation {
			return nil, &UnsupportedError{Op: "submit job", Version: a.version(),
				Detail: "the signal prefixes B: and R: are rejected by this plugin; use " + s.spec}
		}
		j.Signal = s.spec
	}
	return v38Submit{Script: p.Script, Job: j}, nil
}

func (a v0038) nodeUpdateBody(string, string, string) (any, error) {
	return nil, &UnsupportedError{Op: "update node", Version: a.version(),
		Detail: "the plugin has no POST node/{name}; use scontrol (UpdateNodeScontrol)"}
}

type v38Job struct {
	JobID          int    `json:"job_id"`
	Name           string `json:"name"`
	Partition      string `json:"partition"`
	JobState       string `json:"job_state"`
	StateReason    string `json:"state_reason"`
	ExitCode       noVal  `json:"exit_code"` // raw wait status
	Nodes          string `json:"nodes"`
	SubmitTime     noVal  `json:"submit_time"`
	StartTime      noVal  `json:"start_time"`
	EndTime        noVal  `json:"end_time"`
	TimeLimit      noVal  `json:"time_limit"`
	StandardOutput string `json:"standard_output"`
	StandardError  string `json:"standard_error"`
	RestartCnt     int    `json:"restart_cnt"`
}

func (v0038) decodeJobs(body []byte) ([]Job, error) {
	var r struct {
		Jobs []v38Job `json:"jobs"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	out := make([]Job, 0, len(r.Jobs))
	for _, w := range r.Jobs {
		j := Job{
			ID: w.JobID, Name: w.Name, Partition: w.Partition, Reason: w.StateReason,
			Nodes: w.Nodes, SubmitTime: unixTime(w.SubmitTime), StartTime: unixTime(w.StartTime),
			EndTime: unixTime(w.EndTime), TimeLimit: minutes(w.TimeLimit),
			StdOut: w.StandardOutput, StdErr: w.StandardError, RestartCount: w.RestartCnt,
		}
		j.State, j.Flags = normalizeJobState([]string{w.JobState})
		j.ExitCode, j.ExitSignal = waitStatus(w.ExitCode.value(0))
		out = append(out, j)
	}
	return out, nil
}

// waitStatus splits a raw wait(2) status the way WEXITSTATUS/WTERMSIG do.
func waitStatus(st int64) (code, signal int) {
	if sig := int(st & 0x7f); sig != 0 {
		return 0, sig
	}
	return int(st>>8) & 0xff, 0
}

type v38Node struct {
	Name       string   `json:"name"`
	State      string   `json:"state"`
	StateFlags []string `json:"state_flags"`
	Reason     string   `json:"reason"`
	Partitions []string `json:"partitions"`
	CPUs       int      `json:"cpus"`
	AllocCPUs  int      `json:"alloc_cpus"`
	RealMemory int      `json:"real_memory"`
	Gres       string   `json:"gres"`
	Features   string   `json:"features"` // comma-separated
	Address    string   `json:"address"`
	Hostname   string   `json:"hostname"`
}

func (v0038) decodeNodes(body []byte) ([]Node, error) {
	var r struct {
		Nodes []v38Node `json:"nodes"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	out := make([]Node, 0, len(r.Nodes))
	for _, w := range r.Nodes {
		n := Node{Name: w.Name, Reason: w.Reason, Partitions: w.Partitions, CPUs: w.CPUs,
			AllocCPUs: w.AllocCPUs, MemoryMB: w.RealMemory, Gres: w.Gres,
			Features: splitList(w.Features), Address: w.Address, Hostname: w.Hostname}
		n.State, n.Flags = normalizeNodeState(append([]string{w.State}, w.StateFlags...))
		out = append(out, n)
	}
	return out, nil
}

type v38Partition struct {
	Name         string `json:"name"`
	Nodes        string `json:"nodes"`
	State        string `json:"state"`
	TotalNodes   int    `json:"total_nodes"`
	TotalCPUs    int    `json:"total_cpus"`
	MaxTimeLimit noVal  `json:"max_time_limit"`
}

func (v0038) decodePartitions(body []byte) ([]Partition, error) {
	var r struct {
		Partitions []v38Partition `json:"partitions"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	out := make([]Partition, 0, len(r.Partitions))
	for _, w := range r.Partitions {
		out = append(out, Partition{Name: w.Name, Nodes: w.Nodes, State: strings.ToUpper(w.State),
			TotalNodes: w.TotalNodes, TotalCPUs: w.TotalCPUs, MaxTime: minutes(w.MaxTimeLimit)})
	}
	return out, nil
}

func (v0038) decodePing(body []byte) ([]Controller, error) {
	var r struct {
		Pings []struct {
			Hostname string `json:"hostname"`
			Ping     string `json:"ping"`
			Mode     string `json:"mode"`
		} `json:"pings"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	out := make([]Controller, 0, len(r.Pings))
	for _, p := range r.Pings {
		out = append(out, Controller{Hostname: p.Hostname, Mode: p.Mode, Responding: strings.EqualFold(p.Ping, "UP")})
	}
	return out, nil
}

// splitList splits Slurm's comma-separated lists, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
