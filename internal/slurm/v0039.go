package slurm

// v0.0.39: Slurm 23.02, the step between the two families. Requests already
// have the newer shapes (environment list, {"set","number"} time limit,
// kill_warning_* signal, node updates) but the script still goes at the top
// level; job replies keep one state string, plain epoch times and a raw wait
// status as exit code. Nodes and partitions read like v0.0.40 (partitions
// carry no state).

func init() { register(v0039{}) }

type v0039 struct{}

func (v0039) version() string { return "v0.0.39" }

type v39Submit struct {
	Script string     `json:"script"`
	Job    v40JobDesc `json:"job"`
}

func (v0039) submitBody(p preparedSpec) (any, error) {
	return v39Submit{Script: p.Script, Job: jobDescV39(p)}, nil
}

func (v0039) nodeUpdateBody(state, reason, user string) (any, error) {
	return nodeUpdateV39(state, reason, user)
}

func (v0039) decodeJobs(body []byte) ([]Job, error) {
	// The v0.0.38 reader fits: job_state is one string, exit_code a raw wait
	// status, and noVal reads both plain and {"set","number"} numbers.
	return v0038{}.decodeJobs(body)
}

func (v0039) decodeNodes(body []byte) ([]Node, error) { return decodeNodesV39(body) }

func (v0039) decodePartitions(body []byte) ([]Partition, error) {
	return decodePartitionsV39(body)
}

func (v0039) decodePing(body []byte) ([]Controller, error) { return decodePingV39(body) }
