package recipes

// RankTimingsDir is the directory in a job's RunDir where each rank of the CPU trainer writes
// RANK.json, a RankTiming, every log_every steps: the health policy's straggler check reads them.
const RankTimingsDir = "ranks"

// RankTiming is one rank's own compute time per step (batch, forward and loss, before any
// collective; the median of its last log_every steps). In a synchronous job every rank's step
// lasts as long as the slowest rank's, so the step time cannot tell which node is slow; this can.
type RankTiming struct {
	Rank           int     `json:"rank"`
	Node           string  `json:"node"`
	Step           int     `json:"step"`
	ComputeSeconds float64 `json:"compute_seconds"`
	Time           string  `json:"time"` // RFC 3339
}
