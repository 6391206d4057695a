package core

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
)

type pendingOp struct {
	done   chan struct{}
	timer  *time.Timer
	manual bool
	run    func(fail error) // completes the operation; runs at most once
}

// schedule makes key a pending operation that completes (complete runs with the failure, if any) after latency,
// at once when latency is zero, or only through Complete when manual; a fated failure (failOperations fault)
// replaces a successful completion. underLock runs with the registry locked, for bookkeeping that must appear
// with the operation. An operation started before a reset never completes into the new state.
func (o *Ops) schedule(key string, manual bool, latency time.Duration, fated *OpError, complete func(error), underLock func()) {
	o.mu.Lock()
	gen := o.gen
	if underLock != nil {
		underLock()
	}
	p := &pendingOp{done: make(chan struct{}), manual: manual}
	var once sync.Once
	p.run = func(fail error) {
		once.Do(func() {
			o.mu.Lock()
			stale := o.gen != gen
			delete(o.pending, key)
			o.mu.Unlock()
			if !stale {
				if fail == nil && fated != nil {
					fail = fated
				}
				complete(fail)
			}
			close(p.done)
		})
	}
	o.pending[key] = p
	o.mu.Unlock()
	switch {
	case manual:
	case latency <= 0:
		p.run(nil)
	default:
		p.timer = time.AfterFunc(latency, func() { p.run(nil) })
	}
}

func (o *Ops) latency(method string, override *time.Duration) time.Duration {
	if override != nil {
		return *override
	}
	if d, ok := o.srv.Faults.Latency(method); ok {
		return d
	}
	return o.srv.OpLatency
}

// safeApply turns a panic in a handler's completion code into an operation error instead of a crashed emulator.
func (o *Ops) safeApply(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			o.srv.Log.Error("operation completion panicked", "panic", v)
			err = NewOpError(500, "INTERNAL_ERROR", fmt.Sprintf("emulator error: %v", v))
		}
	}()
	return fn()
}

// Complete finishes a pending operation now (a Manual one, or one still waiting for its latency). A non-nil
// fail makes it end in that error without running Apply. key is a Compute operation key or an LRO name. It
// reports whether the operation was pending.
func (o *Ops) Complete(key string, fail error) bool {
	o.mu.Lock()
	p := o.pending[key]
	o.mu.Unlock()
	if p == nil {
		return false
	}
	if p.timer != nil {
		p.timer.Stop()
	}
	p.run(fail)
	return true
}

// Wait blocks until the operation (Compute key or LRO name) is done, ctx ends, or max passes.
func (o *Ops) Wait(ctx context.Context, key string, max time.Duration) {
	o.mu.Lock()
	p := o.pending[key]
	o.mu.Unlock()
	if p == nil {
		return
	}
	t := time.NewTimer(max)
	defer t.Stop()
	select {
	case <-p.done:
	case <-ctx.Done():
	case <-t.C:
	}
}

// Pending reports how many operations have not completed.
func (o *Ops) Pending() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.pending)
}

// Flush completes every timed pending operation now (used before saving state at exit). Manual operations stay.
func (o *Ops) Flush() {
	o.mu.Lock()
	var ps []*pendingOp
	for _, p := range o.pending {
		if !p.manual {
			ps = append(ps, p)
		}
	}
	o.mu.Unlock()
	for _, p := range ps {
		if p.timer != nil {
			p.timer.Stop()
		}
		p.run(nil)
	}
}

// reset forgets every pending operation without completing it.
func (o *Ops) reset() {
	o.mu.Lock()
	o.gen++
	ps := o.pending
	o.pending = map[string]*pendingOp{}
	o.byRequest = map[string]string{}
	o.mu.Unlock()
	for _, p := range ps {
		if p.timer != nil {
			p.timer.Stop()
		}
		go p.run(nil) // stale generation: only releases waiters
	}
}

// reindex rebuilds the requestId index from stored operations and fails operations a previous process left
// RUNNING (their completion work died with it).
func (o *Ops) reindex() {
	o.mu.Lock()
	o.byRequest = map[string]string{}
	o.mu.Unlock()
	for _, rec := range o.srv.Store.List(KindComputeOperations, "") {
		var op computepb.Operation
		if rec.Decode(&op) != nil {
			continue
		}
		if id := op.GetClientOperationId(); id != "" {
			project := strings.SplitN(rec.Key, "/", 3)[1]
			o.mu.Lock()
			o.byRequest[project+"\x00"+id] = rec.Key
			o.mu.Unlock()
		}
		if op.GetStatus() != computepb.Operation_DONE {
			o.interruptedCompute(rec.Key)
		}
	}
	for _, rec := range o.srv.Store.List(KindLROs, "") {
		var l LRO
		if rec.Decode(&l) == nil && !l.Done {
			l.Done = true
			l.Error = &RPCStatus{Code: GRPCCode(503), Message: "The operation was interrupted by an emulator restart."}
			_ = o.srv.Store.Put(KindLROs, rec.Key, &l)
		}
	}
}

// doWork does a completing operation's work inside its transaction and returns the operation's
// error: fail (a fate injected by the faults) stands for the work's own error; a failed apply's
// changes are undone, and a failed operation's rollback (when it has one) runs after, as a
// failed Google Cloud operation leaves what it cleaned up.
func (o *Ops) doWork(tx *Tx, fail error, apply func() error, rollback func(*Tx)) *OpError {
	var opErr *OpError
	if fail != nil {
		opErr = AsOpError(fail)
	} else if apply != nil {
		sp := tx.Savepoint()
		if err := o.safeApply(apply); err != nil {
			tx.RollbackTo(sp)
			opErr = AsOpError(err)
		}
	}
	if opErr != nil && rollback != nil {
		sp := tx.Savepoint()
		if err := o.safeApply(func() error { rollback(tx); return nil }); err != nil {
			tx.RollbackTo(sp)
		}
	}
	return opErr
}
