package instances

import (
	"sync"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// onChange follows committed instance changes: it keeps the address and policy index, the synthetic console, the
// run-duration timers and the runtime in step with the store. Whatever caused the change (an operation, a bulk
// insert, a reset of the emulator, a snapshot load) is handled the same way.
func (s *Service) onChange(c core.Change) {
	if c.Kind != KindInstances {
		return
	}
	_, _, wk := s.hooks()
	if c.New == nil {
		old := s.index.remove(c.Key)
		for _, n := range old.nics {
			s.ipam.release(n.subnet, n.ip, c.Key)
		}
		s.serial.drop(c.Key)
		s.timers.cancel(c.Key)
		if wk != nil {
			wk.enqueue(c.Key, actDelete)
		}
		return
	}
	np, ok := probe(c.New)
	if !ok {
		return
	}
	e := entryOf(np)
	old := s.index.set(c.Key, e)
	for _, n := range e.nics {
		s.ipam.mark(n.subnet, n.ip, c.Key)
	}
	for _, n := range old.nics {
		if !containsNIC(e.nics, n) {
			s.ipam.release(n.subnet, n.ip, c.Key)
		}
	}
	prev := ""
	if c.Old != nil {
		if op, ok := probe(c.Old); ok {
			prev = op.Status
		}
	}
	now := np.Status
	switch {
	case now == statusRunning && prev != statusRunning:
		var inst computepb.Instance
		if core.Decode(c.New, &inst) == nil {
			s.serial.boot(c.Key, &inst, s.Now())
		}
		if wk != nil {
			wk.enqueue(c.Key, actBoot)
		}
	case prev == statusRunning || prev == statusStopping:
		if now == statusTerminated || now == "STOPPED" || now == "SUSPENDED" {
			s.serial.appendLine(c.Key, s.Now(), "[ 1000.000000] reboot: Power down")
			if wk != nil {
				wk.enqueue(c.Key, actStop)
			}
		}
	}
	deadline := np.ResourceStatus.Scheduling.TerminationTimestamp
	at, err := time.Parse(timestampLayout, deadline)
	if now == statusRunning && err == nil {
		key := c.Key
		s.timers.arm(key, deadline, at.Sub(s.Now()), func() { s.terminate(key, deadline) })
	} else {
		s.timers.cancel(c.Key)
	}
}

func containsNIC(l []nicAddr, n nicAddr) bool {
	for _, x := range l {
		if x == n {
			return true
		}
	}
	return false
}

// terminate ends a VM whose maxRunDuration ran out, per its instanceTerminationAction.
func (s *Service) terminate(key, deadline string) {
	_ = s.Store.Update(func(tx *core.Tx) error {
		var inst computepb.Instance
		if ok, _ := tx.Get(KindInstances, key, &inst); !ok || inst.GetStatus() != statusRunning ||
			inst.GetResourceStatus().GetScheduling().GetTerminationTimestamp() != deadline {
			return nil
		}
		if inst.GetScheduling().GetInstanceTerminationAction() == "DELETE" {
			s.discard(tx, key)
			return nil
		}
		inst.Status = proto.String(statusTerminated)
		inst.LastStopTimestamp = proto.String(core.Timestamp(s.Now()))
		inst.ResourceStatus.Scheduling = nil
		return tx.Put(KindInstances, key, &inst)
	})
}

// timers holds one run-duration timer per VM (a stopped timer costs no goroutine).
type timers struct {
	mu sync.Mutex
	m  map[string]*armed
}

type armed struct {
	deadline string
	t        *time.Timer
}

func newTimers() *timers { return &timers{m: map[string]*armed{}} }

// timestampLayout is core.Timestamp's format.
const timestampLayout = "2006-01-02T15:04:05.000-07:00"

func (t *timers) arm(key, deadline string, after time.Duration, fn func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if a := t.m[key]; a != nil {
		if a.deadline == deadline {
			return
		}
		a.t.Stop()
	}
	t.m[key] = &armed{deadline: deadline, t: time.AfterFunc(after, fn)}
}

func (t *timers) cancel(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if a := t.m[key]; a != nil {
		a.t.Stop()
		delete(t.m, key)
	}
}

func (t *timers) stopAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, a := range t.m {
		a.t.Stop()
		delete(t.m, k)
	}
}

func (s *Service) close() {
	s.timers.stopAll()
	if _, _, wk := s.hooks(); wk != nil {
		wk.close()
	}
}
