package nodepartition

import "sync"

// notice is a warning an apply ends with besides its result: a scale-down that deleted nodes
// past drain_timeout, a static node this apply did not touch that is not in Slurm.
type notice struct{ summary, detail string }

// notices collects an apply's notices; its steps may run concurrently.
type notices struct {
	mu   sync.Mutex
	list []notice
}

func (n *notices) add(summary, detail string) {
	n.mu.Lock()
	n.list = append(n.list, notice{summary, detail})
	n.mu.Unlock()
}

func (n *notices) all() []notice {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]notice(nil), n.list...)
}

// noticeSeen, when set, sees each notice an apply ends with as a warning: terraform-plugin-testing
// does not surface warnings, so tests read them here.
var noticeSeen func(summary, detail string)
