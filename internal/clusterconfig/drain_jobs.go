package clusterconfig

import (
	"encoding/json"
	"fmt"
	"strings"
)

// GuestAttrDrainJobsPrefix + partition name is the controller guest attribute in which the agent
// reports, for a partition's Drain, the jobs that still run on its drained nodes (FormatDrainJobs),
// so the provider can say which job a scale-down waits for, and name it when it gives up.
const GuestAttrDrainJobsPrefix = "drain-jobs-"

// DrainJobsAttr is the guest attribute key of a partition's drain jobs report.
func DrainJobsAttr(partition string) string { return GuestAttrDrainJobsPrefix + partition }

// DrainJob is one job that keeps a node of a scale-down busy.
type DrainJob struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
	// Nodes is the hostlist of the drained nodes the job runs on.
	Nodes string `json:"nodes"`
}

func (j DrainJob) String() string {
	return fmt.Sprintf("job %d (%s) on %s", j.ID, j.Name, j.Nodes)
}

// DrainJobs is the drain jobs report: the drain it is for and its jobs.
type DrainJobs struct {
	ID   string     `json:"id"`
	Jobs []DrainJob `json:"jobs"`
}

// FormatDrainJobs renders a drain jobs report.
func FormatDrainJobs(r DrainJobs) string {
	if r.Jobs == nil {
		r.Jobs = []DrainJob{}
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// ParseDrainJobs reads a drain jobs report.
func ParseDrainJobs(v string) (DrainJobs, error) {
	var r DrainJobs
	if err := json.Unmarshal([]byte(strings.TrimSpace(v)), &r); err != nil {
		return DrainJobs{}, fmt.Errorf("drain jobs report %q: %w", v, err)
	}
	if r.ID == "" {
		return DrainJobs{}, fmt.Errorf("drain jobs report %q has no drain id", v)
	}
	return r, nil
}

// DescribeDrainJobs lists jobs for a message: "job 12 (train) on c-a-1, job 13 (eval) on c-a-d0".
func DescribeDrainJobs(jobs []DrainJob) string {
	parts := make([]string, len(jobs))
	for i, j := range jobs {
		parts[i] = j.String()
	}
	return strings.Join(parts, ", ")
}
