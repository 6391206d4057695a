package clusterconfig

import "encoding/json"

// GuestAttrGoodputPrefix + window ("1d", "7d", "30d") is the controller's measured goodput over
// that window (a GoodputReport as JSON), refreshed while accounting is on.
const GuestAttrGoodputPrefix = "goodput-"

// GoodputWindows are the windows the controller reports, as `hypercompute-agent goodput --since`
// takes them.
var GoodputWindows = []string{"1d", "7d", "30d"}

// GoodputReportMaxJobs bounds the jobs a report lists (the newest); EncodeGoodputReport drops
// more of the oldest until the report fits a guest attribute. The totals count every job.
const GoodputReportMaxJobs = 50

// GoodputReport is measured goodput from Slurm's accounting records over a window.
//
// Scheduling goodput is run / (run + wait): the share of a job's time in the queue and on nodes
// that it spent running. Runtime goodput is (run - lost) / run: the share of run time that became
// progress. Lost time is, for a job whose run directory holds a recipe progress file, the
// lost_seconds it recorded (time redone since the last checkpoint); for any other job, the whole
// run of every attempt that a requeue, node failure or preemption ended. Program goodput, the
// third layer, is the MFU recipe jobs report in their progress files.
type GoodputReport struct {
	Window      string `json:"window"`
	GeneratedAt string `json:"generated_at"` // RFC 3339
	Since       string `json:"since"`        // RFC 3339
	// Total sums every job in the window.
	Total      GoodputFigures            `json:"total"`
	Partitions map[string]GoodputFigures `json:"partitions"`
	Jobs       []JobGoodput              `json:"jobs"`
	// JobsOmitted counts jobs beyond GoodputReportMaxJobs, counted in the totals only.
	JobsOmitted int `json:"jobs_omitted,omitempty"`
	// Repairs are the health policy's repairs in the window per partition, from the controller's
	// health records: the node time they took out of service (none on a login VM's report).
	Repairs map[string]RepairFigures `json:"repairs,omitempty"`
}

// RepairFigures are the repairs of one partition's nodes that overlap a window.
type RepairFigures struct {
	Repairs int `json:"repairs"`
	// NodeSeconds is the time within the window the repaired nodes were out of service for them
	// (from each repair's start to its end, or now while it runs).
	NodeSeconds float64 `json:"node_seconds"`
}

// GoodputFigures are the sums and ratios for a set of jobs.
type GoodputFigures struct {
	Jobs        int     `json:"jobs"`
	WaitSeconds float64 `json:"wait_seconds"`
	RunSeconds  float64 `json:"run_seconds"`
	LostSeconds float64 `json:"lost_seconds"`
	Restarts    int     `json:"restarts"`
	// Ratios in [0, 1]; 1 when there is no time to divide.
	Scheduling float64 `json:"scheduling_goodput"`
	Runtime    float64 `json:"runtime_goodput"`
	// Program goodput is model FLOPs utilisation (MFU): the model FLOPs a recipe's steps did over
	// the hardware's peak, as its progress file reports it, weighted by ProgramSeconds, the step
	// time it was measured over (a partition's is the step-time-weighted mean of its jobs'). Both
	// 0 when no job reported one (not a recipe, or a trainer that reports no MFU).
	Program        float64 `json:"program_goodput,omitempty"`
	ProgramSeconds float64 `json:"program_seconds,omitempty"`
}

// JobGoodput is one Slurm job, all its attempts together.
type JobGoodput struct {
	JobID     string `json:"job_id"`
	Name      string `json:"name"`
	Partition string `json:"partition"`
	// State is the last attempt's state (COMPLETED, FAILED, RUNNING ...).
	State string `json:"state"`
	GoodputFigures
}

// EncodeGoodputReport is the report's guest attribute value: the oldest jobs are left out (and
// counted in JobsOmitted) until it fits MaxGuestAttributeValue.
func EncodeGoodputReport(r GoodputReport) (string, error) {
	for {
		b, err := json.Marshal(r)
		if err != nil || len(b) <= MaxGuestAttributeValue || len(r.Jobs) == 0 {
			return string(b), err
		}
		drop := max(1, len(r.Jobs)/4)
		r.Jobs = r.Jobs[drop:]
		r.JobsOmitted += drop
	}
}
