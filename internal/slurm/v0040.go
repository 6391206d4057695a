package slurm

import (
	"encoding/json"
	"fmt"
	"strings"
)

// v0.0.40: Slurm 23.11. Optional numbers are {"set","infinite","number"}
// objects, job and node states are lists, exit codes are
// {"status","return_code","signal"} objects, the environment is a list of
// "K=V", the script goes inside "job", the warning signal is split into
// kill_warning_{signal,delay,flags}, and nodes can be updated
// (POST node/{name} with a state list). v0.0.41 and v0.0.42 keep every shape
// this client uses, so their adapters reuse this one.

func init() { register(v0040{}) }

type v0040 struct{}

func (v0040) version() string { return "v0.0.40" }

type v40Submit struct {
	Job v40JobDesc `json:"job"`
}

type v40JobDesc struct {
	Script            string     `json:"script,omitempty"`
	Name              string     `json:"name,omitempty"`
	Partition         string     `json:"partition,omitempty"`
	MinimumNodes      int        `json:"minimum_nodes,omitempty"`
	MaximumNodes      int        `json:"maximum_nodes,omitempty"`
	Tasks             int        `json:"tasks,omitempty"`
	TasksPerNode      int        `json:"tasks_per_node,omitempty"`
	CPUsPerTask       int        `json:"cpus_per_task,omitempty"`
	TresPerNode       string     `json:"tres_per_node,omitempty"`
	Constraints       string     `json:"constraints,omitempty"`
	TimeLimit         *setNumber `json:"time_limit,omitempty"` // minutes
	WorkDir           string     `json:"current_working_directory"`
	StdOut            string     `json:"standard_output,omitempty"`
	StdErr            string     `json:"standard_error,omitempty"`
	Environment       []string   `json:"environment"`
	Requeue           bool       `json:"requeue"`
	KillWarningSignal string     `json:"kill_warning_signal,omitempty"`
	KillWarningDelay  *setNumber `json:"kill_warning_delay,omitempty"`
	KillWarningFlags  []string   `json:"kill_warning_flags,omitempty"`
	Dependency        string     `json:"dependency,omitempty"`
}

// jobDescV39 fills the job description shared by v0.0.39 and later; the
// caller decides where the script goes.
func jobDescV39(p preparedSpec) v40JobDesc {
	j := v40JobDesc{
		Name: p.Name, Partition: p.Partition, MinimumNodes: p.Nodes, MaximumNodes: p.Nodes,
		Tasks: p.tasks, TasksPerNode: p.TasksPerNode, CPUsPerTask: p.CPUsPerTask,
		Constraints: p.Constraints, WorkDir: p.WorkDir, StdOut: p.StdOut, StdErr: p.StdErr,
		Environment: sortedEnv(p.Env), Requeue: p.Requeue, Dependency: p.Dependency,
	}
	if p.timeMinutes > 0 {
		j.TimeLimit = numberSet(p.timeMinutes)
	}
	if p.GPUsPerNode > 0 {
		j.TresPerNode = fmt.Sprintf("gres/gpu:%d", p.GPUsPerNode)
	}
	if s := p.signal; s != nil {
		j.KillWarningSignal = s.Name
		j.KillWarningDelay = numberSet(int64(s.Seconds))
		j.KillWarningFlags = s.killWarningFlags()
	}
	return j
}

func (v0040) submitBody(p preparedSpec) (any, error) {
	j := jobDescV39(p)
	j.Script = p.Script
	return v40Submit{Job: j}, nil
}

type v40NodeUpdate struct {
	State     []string `json:"state"`
	Reason    string   `json:"reason,omitempty"`
	ReasonUID string   `json:"reason_uid,omitempty"`
}

func nodeUpdateV39(state, reason, user string) (any, error) {
	u := v40NodeUpdate{State: []string{state}, Reason: reason}
	if reason != "" {
		u.ReasonUID = user
	}
	return u, nil
}

func (v0040) nodeUpdateBody(state, reason, user string) (any, error) {
	return nodeUpdateV39(state, reason, user)
}

type v40ExitCode struct {
	Status     []string `json:"status"` // EXITED, SIGNALED, CORE_DUMPED, PENDING, INVALID
	ReturnCode noVal    `json:"return_code"`
	Signal     struct {
		ID   noVal  `json:"id"`
		Name string `json:"name"`
	} `json:"signal"`
}

type v40Job struct {
	JobID          int         `json:"job_id"`
	Name           string      `json:"name"`
	Partition      string      `json:"partition"`
	JobState       []string    `json:"job_state"`
	StateReason    string      `json:"state_reason"`
	ExitCode       v40ExitCode `json:"exit_code"`
	Nodes          string      `json:"nodes"`
	SubmitTime     noVal       `json:"submit_time"`
	StartTime      noVal       `json:"start_time"`
	EndTime        noVal       `json:"end_time"`
	TimeLimit      noVal       `json:"time_limit"`
	StandardOutput string      `json:"standard_output"`
	StandardError  string      `json:"standard_error"`
	RestartCnt     int         `json:"restart_cnt"`
}

func (v0040) decodeJobs(body []byte) ([]Job, error) {
	var r struct {
		Jobs []v40Job `json:"jobs"`
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
			ExitCode: int(w.ExitCode.ReturnCode.value(0)), ExitSignal: int(w.ExitCode.Signal.ID.value(0)),
		}
		j.State, j.Flags = normalizeJobState(w.JobState)
		out = append(out, j)
	}
	return out, nil
}

type v40Node struct {
	Name       string   `json:"name"`
	State      []string `json:"state"`
	Reason     string   `json:"reason"`
	Partitions []string `json:"partitions"`
	CPUs       int      `json:"cpus"`
	AllocCPUs  int      `json:"alloc_cpus"`
	RealMemory int      `json:"real_memory"`
	Gres       string   `json:"gres"`
	Features   []string `json:"features"`
	Address    string   `json:"address"`
	Hostname   string   `json:"hostname"`
}

// decodeNodesV39 reads the node list of v0.0.39 and later.
func decodeNodesV39(body []byte) ([]Node, error) {
	var r struct {
		Nodes []v40Node `json:"nodes"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	out := make([]Node, 0, len(r.Nodes))
	for _, w := range r.Nodes {
		n := Node{Name: w.Name, Reason: w.Reason, Partitions: w.Partitions, CPUs: w.CPUs,
			AllocCPUs: w.AllocCPUs, MemoryMB: w.RealMemory, Gres: w.Gres, Features: w.Features,
			Address: w.Address, Hostname: w.Hostname}
		n.State, n.Flags = normalizeNodeState(w.State)
		out = append(out, n)
	}
	return out, nil
}

func (v0040) decodeNodes(body []byte) ([]Node, error) { return decodeNodesV39(body) }

type v40Partition struct {
	Name  string `json:"name"`
	Nodes struct {
		Configured string `json:"configured"`
		Total      int    `json:"total"`
	} `json:"nodes"`
	CPUs struct {
		Total int `json:"total"`
	} `json:"cpus"`
	Partition struct {
		State []string `json:"state"` // absent in v0.0.39
	} `json:"partition"`
	Maximums struct {
		Time noVal `json:"time"`
	} `json:"maximums"`
}

// decodePartitionsV39 reads the partition list of v0.0.39 and later.
func decodePartitionsV39(body []byte) ([]Partition, error) {
	var r struct {
		Partitions []v40Partition `json:"partitions"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	out := make([]Partition, 0, len(r.Partitions))
	for _, w := range r.Partitions {
		out = append(out, Partition{Name: w.Name, Nodes: w.Nodes.Configured,
			State: strings.ToUpper(strings.Join(w.Partition.State, ",")), TotalNodes: w.Nodes.Total,
			TotalCPUs: w.CPUs.Total, MaxTime: minutes(w.Maximums.Time)})
	}
	return out, nil
}

func (v0040) decodePartitions(body []byte) ([]Partition, error) { return decodePartitionsV39(body) }

// decodePingV39 reads the ping list of v0.0.39 and later ("pinged", and
// from v0.0.41 also "responding").
func decodePingV39(body []byte) ([]Controller, error) {
	var r struct {
		Pings []struct {
			Hostname   string `json:"hostname"`
			Pinged     string `json:"pinged"`
			Responding *bool  `json:"responding"`
			Mode       string `json:"mode"`
		} `json:"pings"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	out := make([]Controller, 0, len(r.Pings))
	for _, p := range r.Pings {
		ok := strings.EqualFold(p.Pinged, "UP")
		if p.Responding != nil {
			ok = *p.Responding
		}
		out = append(out, Controller{Hostname: p.Hostname, Mode: p.Mode, Responding: ok})
	}
	return out, nil
}

func (v0040) decodePing(body []byte) ([]Controller, error) { return decodePingV39(body) }
