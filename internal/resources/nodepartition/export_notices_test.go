package nodepartition

import "sync"

// Notices records the warnings applies end with (see noticeSeen).
type Notices struct {
	mu   sync.Mutex
	list []string
}

// All is every warning seen so far, "summary: detail".
func (n *Notices) All() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.list...)
}

// RecordNoticesForTest records every warning an apply ends with until restore.
func RecordNoticesForTest() (n *Notices, restore func()) {
	n = &Notices{}
	old := noticeSeen
	noticeSeen = func(summary, detail string) {
		n.mu.Lock()
		n.list = append(n.list, summary+": "+detail)
		n.mu.Unlock()
	}
	return n, func() { noticeSeen = old }
}
