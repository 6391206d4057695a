package metadata

import (
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// onChange wakes the wait_for_change calls a committed change may concern (the VM's record, its guest attributes,
// its host's notices, its project's metadata) and closes the listener of a deleted VM. Waiters re-render and compare ETags, so a
// spurious wake-up costs one render.
func (m *Server) onChange(c core.Change) {
	switch c.Kind {
	case instances.KindInstances:
		m.signal(func(key string) bool { return key == c.Key })
		if c.New == nil {
			m.stop(c.Key)
		}
	case instances.KindGuestAttributes, instances.KindHostEvents:
		m.signal(func(key string) bool { return key == c.Key })
	case compute.KindProjects:
		prefix := c.Key + "/"
		m.signal(func(key string) bool { return strings.HasPrefix(key, prefix) })
	}
}

func (m *Server) signal(match func(key string) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, set := range m.waiters {
		if !match(key) {
			continue
		}
		for ch := range set {
			select {
			case ch <- struct{}{}:
			default: // already signalled; the waiter re-renders once for both
			}
		}
	}
}

// subscribe returns a channel that receives a signal after changes concerning the VM, and its cancel function.
func (m *Server) subscribe(key string) (chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	m.mu.Lock()
	set := m.waiters[key]
	if set == nil {
		set = map[chan struct{}]bool{}
		m.waiters[key] = set
	}
	set[ch] = true
	m.mu.Unlock()
	return ch, func() {
		m.mu.Lock()
		delete(m.waiters[key], ch)
		if len(m.waiters[key]) == 0 {
			delete(m.waiters, key)
		}
		m.mu.Unlock()
	}
}
