// Package goodput predicts the runtime goodput of a training job before it
// runs: a closed-form planner (Young/Daly) and a seeded discrete-event fleet
// simulator that checks it. Runtime goodput is the share of the job's wall
// time that becomes training progress; the rest is lost to checkpoint
// pauses, rework after an interruption (progress since the last durable
// checkpoint), recovery (detecting the failure, swapping a node, restarting)
// and waiting for a repaired node when no spare is free.
//
// Failure and recovery figures come from internal/catalog (reliability.go,
// checkpointstorage.go, the Lustre tier table); this package restates none.
//
// Both models make the same simplifications, so their agreement tests the
// arithmetic rather than hiding a shared mistake in one of them: nodes fail
// independently with exponential lifetimes, only while the job runs (an idle
// spare or a stopped job does not fail); repairs take exponential times and
// go on in parallel; a job restarts from its last durable checkpoint.
package goodput
