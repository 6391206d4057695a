package recipes

import _ "embed"

// cpuTrainer is the tiny-gpt trainer the CPU batch script writes into the
// run directory from a heredoc, so no file needs to exist on the nodes.
//
//go:embed cputrain/train.py
var cpuTrainer string

// CPUTrainer returns the embedded trainer's source (tests run it directly).
func CPUTrainer() string { return cpuTrainer }

// StoppedFile is what the trainer leaves in RunDir after it checkpointed on
// a signal before max_steps (train.py STOPPED); the batch script requeues
// the job when it finds it.
const StoppedFile = "STOPPED"
