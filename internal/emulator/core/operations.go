package core

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"
)

// Store kinds of the operations engine.
const (
	KindComputeOperations = "compute.operations" // key: projects/P/{zones/Z|regions/R|global}/operations/NAME
	KindLROs              = "lro.operations"     // key: the LRO name
)

// Ops is the operations engine shared by every API: operations start RUNNING and complete after the latency
// configured for their method (faults) or the default; the change they stand for is applied at completion in one
// store transaction, so a failed operation leaves nothing behind.
type Ops struct {
	srv       *Server
	mu        sync.Mutex
	gen       int
	pending   map[string]*pendingOp
	byRequest map[string]string // project + "\x00" + requestId → compute operation key
}

type pendingOp struct {
	done   chan struct{}
	timer  *time.Timer
	manual bool
	run    func(fail error) // completes the operation; runs at most once
}

func newOps(srv *Server) *Ops {
	return &Ops{srv: srv, pending: map[string]*pendingOp{}, byRequest: map[string]string{}}
}

// ComputeOp describes a Compute operation to start.
type ComputeOp struct {
	Project string
	Zone    string // set for a zonal operation
	Region  string // set for a regional operation; neither: global
	// OperationType is Compute's verb: insert, delete, patch, update, bulkInsert, setMetadata ...
	OperationType    string
	TargetLink       string // selfLink or relative path of the target
	TargetID         uint64
	Description      string
	OperationGroupID string
	// Method and RequestID default to the request's method id and requestId query parameter.
	Method, RequestID string
	// Apply makes the change when the operation completes, inside a store transaction. A non-nil error fails
	// the operation and undoes every change Apply made; return an *OpError to pick the error code and HTTP
	// status (any other error becomes INTERNAL_ERROR/500). op is the operation being completed: Apply may set
	// fields on it (warnings, bulk-insert metadata).
	Apply func(tx *Tx, op *computepb.Operation) error
	// Rollback undoes effects the handler made before completion (e.g. an instance shown PROVISIONING at once)
	// whenever the operation fails, injected failures included.
	Rollback func(tx *Tx)
	// Latency overrides the configured duration when non-nil.
	Latency *time.Duration
	// Manual leaves the operation RUNNING until Ops.Complete is called.
	Manual bool
}

// OperationKey is the store key of a Compute operation.
func OperationKey(project, zone, region, name string) string {
	switch {
	case zone != "":
		return fmt.Sprintf("projects/%s/zones/%s/operations/%s", project, zone, name)
	case region != "":
		return fmt.Sprintf("projects/%s/regions/%s/operations/%s", project, region, name)
	}
	return fmt.Sprintf("projects/%s/global/operations/%s", project, name)
}

// ByRequestID returns the operation a previous call with the same requestId started, if any.
func (o *Ops) ByRequestID(project, requestID string) (*computepb.Operation, bool) {
	if requestID == "" {
		return nil, false
	}
	o.mu.Lock()
	key, ok := o.byRequest[project+"\x00"+requestID]
	o.mu.Unlock()
	if !ok {
		return nil, false
	}
	var op computepb.Operation
	if found, _ := o.srv.Store.Get(KindComputeOperations, key, &op); !found {
		return nil, false
	}
	return &op, true
}

// StartCompute records a RUNNING operation and schedules its completion. r supplies the method id (for latency
// and failOperations faults) and requestId; it may be nil when spec names them. It returns the operation as the
// insert call answers it (RUNNING, progress 0) — even when the latency is zero, in which case the operation is
// already DONE in the store when this returns, so a client's first poll sees it done.
func (o *Ops) StartCompute(r *http.Request, spec ComputeOp) *computepb.Operation {
	method, requestID := spec.Method, spec.RequestID
	if r != nil {
		if method == "" {
			method = MethodOf(r)
		}
		if requestID == "" {
			requestID = r.URL.Query().Get("requestId")
		}
	}
	if prev, ok := o.ByRequestID(spec.Project, requestID); ok {
		return prev
	}
	now := o.srv.Now()
	name := fmt.Sprintf("operation-%d-%s-%s-%s", now.UnixMilli(), o.srv.Rand.Hex(13), o.srv.Rand.Hex(8), o.srv.Rand.Hex(8))
	key := OperationKey(spec.Project, spec.Zone, spec.Region, name)
	op := &computepb.Operation{
		Kind:          proto.String("compute#operation"),
		Id:            proto.Uint64(o.srv.Rand.ID()),
		Name:          proto.String(name),
		OperationType: proto.String(spec.OperationType),
		Status:        computepb.Operation_RUNNING.Enum(),
		Progress:      proto.Int32(0),
		InsertTime:    proto.String(Timestamp(now)),
		StartTime:     proto.String(Timestamp(now)),
		SelfLink:      proto.String(SelfLink(key)),
		User:          proto.String(firstNonEmpty(o.srv.User, "emulator@hypercompute.local")),
	}
	if spec.TargetLink != "" {
		op.TargetLink = proto.String(SelfLink(RelativePath(spec.TargetLink)))
	}
	if spec.TargetID != 0 {
		op.TargetId = proto.Uint64(spec.TargetID)
	}
	if requestID != "" {
		op.ClientOperationId = proto.String(requestID)
	}
	if spec.Description != "" {
		op.Description = proto.String(spec.Description)
	}
	if spec.OperationGroupID != "" {
		op.OperationGroupId = proto.String(spec.OperationGroupID)
	}
	if spec.Zone != "" {
		op.Zone = proto.String(SelfLink(fmt.Sprintf("projects/%s/zones/%s", spec.Project, spec.Zone)))
	}
	if spec.Region != "" {
		op.Region = proto.String(SelfLink(fmt.Sprintf("projects/%s/regions/%s", spec.Project, spec.Region)))
	}
	fated := o.srv.Faults.TakeOperationFailure(method)
	latency := o.latency(method, spec.Latency)
	answer := proto.Clone(op).(*computepb.Operation)

	_ = o.srv.Store.Put(KindComputeOperations, key, op)
	o.schedule(key, spec.Manual, latency, fated, func(err error) { o.completeCompute(key, spec, err) }, func() {
		if requestID != "" {
			o.byRequest[spec.Project+"\x00"+requestID] = key
		}
	})
	return answer
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

func (o *Ops) completeCompute(key string, spec ComputeOp, fail error) {
	_ = o.srv.Store.Update(func(tx *Tx) error {
		var op computepb.Operation
		recorded, _ := tx.Get(KindComputeOperations, key, &op)
		var opErr *OpError
		if fail != nil {
			opErr = AsOpError(fail)
		} else if spec.Apply != nil {
			sp := tx.Savepoint()
			if err := o.safeApply(func() error { return spec.Apply(tx, &op) }); err != nil {
				tx.RollbackTo(sp)
				opErr = AsOpError(err)
			}
		}
		if opErr != nil && spec.Rollback != nil {
			sp := tx.Savepoint()
			if err := o.safeApply(func() error { spec.Rollback(tx); return nil }); err != nil {
				tx.RollbackTo(sp)
			}
		}
		if !recorded {
			return nil // the operation record was deleted; its work still happened, as on Google Cloud
		}
		op.Status = computepb.Operation_DONE.Enum()
		op.Progress = proto.Int32(100)
		op.EndTime = proto.String(Timestamp(o.srv.Now()))
		if opErr != nil {
			op.Error = &computepb.Error{Errors: opErr.Errors}
			op.HttpErrorStatusCode = proto.Int32(int32(opErr.HTTPStatus))
			op.HttpErrorMessage = proto.String(strings.ToUpper(http.StatusText(opErr.HTTPStatus)))
		}
		return tx.Put(KindComputeOperations, key, &op)
	})
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

// UpdateCompute changes a RUNNING operation's record (progress, metadata) without completing it.
func (o *Ops) UpdateCompute(key string, fn func(op *computepb.Operation)) error {
	return o.srv.Store.Update(func(tx *Tx) error {
		var op computepb.Operation
		if ok, err := tx.Get(KindComputeOperations, key, &op); !ok || err != nil {
			return fmt.Errorf("operation %s not found", key)
		}
		fn(&op)
		return tx.Put(KindComputeOperations, key, &op)
	})
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

func (o *Ops) interruptedCompute(key string) {
	_ = o.UpdateCompute(key, func(op *computepb.Operation) {
		e := NewOpError(503, "SERVICE_UNAVAILABLE", "The operation was interrupted by an emulator restart.")
		op.Status = computepb.Operation_DONE.Enum()
		op.Progress = proto.Int32(100)
		op.EndTime = proto.String(Timestamp(o.srv.Now()))
		op.Error = &computepb.Error{Errors: e.Errors}
		op.HttpErrorStatusCode = proto.Int32(503)
		op.HttpErrorMessage = proto.String("SERVICE UNAVAILABLE")
	})
}

// LRO is a google.longrunning.Operation as the AIP-style APIs send it.
type LRO struct {
	Name     string          `json:"name"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	Done     bool            `json:"done"` // Google answers "done": false while an operation runs
	Error    *RPCStatus      `json:"error,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
}

// LROSpec describes a Google long-running operation to start.
type LROSpec struct {
	// Name is the full operation name; when empty it is Parent + "/operations/operation-<ms>-<hex>"
	// (Parent "" gives "operations/...", Service Networking's form).
	Name, Parent string
	// Method defaults to the request's method id.
	Method string
	// Metadata renders the operation's metadata (with "@type"; see Typed), at start and again at completion.
	Metadata func(done bool, now time.Time) any
	// Apply makes the change at completion and returns the response (with "@type"; see Typed). An error fails
	// the operation (an *OpError or *APIError picks the google.rpc code) and undoes Apply's changes.
	Apply func(tx *Tx) (response any, err error)
	// Rollback undoes effects made before completion when the operation fails.
	Rollback func(tx *Tx)
	Latency  *time.Duration
	Manual   bool
}

// Typed encodes v (proto message or JSON-able value encoding to an object) with "@type" set to typeURL, as Any
// values in LRO metadata and responses carry it.
func Typed(typeURL string, v any) json.RawMessage {
	b, err := Encode(v)
	if err != nil {
		b = json.RawMessage(`{}`)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	t, _ := json.Marshal(typeURL)
	m["@type"] = t
	out, _ := json.Marshal(m)
	return out
}

// StartLRO records a not-done operation and schedules its completion, like StartCompute.
func (o *Ops) StartLRO(r *http.Request, spec LROSpec) *LRO {
	method := spec.Method
	if method == "" && r != nil {
		method = MethodOf(r)
	}
	now := o.srv.Now()
	name := spec.Name
	if name == "" {
		id := fmt.Sprintf("operation-%d-%s", now.UnixMilli(), o.srv.Rand.Hex(32))
		if spec.Parent == "" {
			name = "operations/" + id
		} else {
			name = strings.TrimSuffix(spec.Parent, "/") + "/operations/" + id
		}
	}
	l := &LRO{Name: name}
	if spec.Metadata != nil {
		l.Metadata, _ = Encode(spec.Metadata(false, now))
	}
	_ = o.srv.Store.Put(KindLROs, name, l)
	answer := *l
	fated := o.srv.Faults.TakeOperationFailure(method)
	latency := o.latency(method, spec.Latency)

	o.schedule(name, spec.Manual, latency, fated, func(err error) { o.completeLRO(name, spec, err) }, nil)
	return &answer
}

func (o *Ops) completeLRO(name string, spec LROSpec, fail error) {
	_ = o.srv.Store.Update(func(tx *Tx) error {
		var l LRO
		recorded, _ := tx.Get(KindLROs, name, &l)
		var opErr *OpError
		var resp any
		if fail != nil {
			opErr = AsOpError(fail)
		} else if spec.Apply != nil {
			sp := tx.Savepoint()
			err := o.safeApply(func() error {
				var e error
				resp, e = spec.Apply(tx)
				return e
			})
			if err != nil {
				tx.RollbackTo(sp)
				opErr = AsOpError(err)
			}
		}
		if opErr != nil && spec.Rollback != nil {
			sp := tx.Savepoint()
			if err := o.safeApply(func() error { spec.Rollback(tx); return nil }); err != nil {
				tx.RollbackTo(sp)
			}
		}
		if !recorded {
			return nil
		}
		l.Done = true
		if spec.Metadata != nil {
			l.Metadata, _ = Encode(spec.Metadata(true, o.srv.Now()))
		}
		if opErr != nil {
			l.Error = opErr.RPCStatus()
		} else if resp != nil {
			b, err := Encode(resp)
			if err != nil {
				return err
			}
			l.Response = b
		}
		return tx.Put(KindLROs, name, &l)
	})
}

// GetLRO returns a Google long-running operation by name.
func (o *Ops) GetLRO(name string) (*LRO, bool) {
	var l LRO
	ok, err := o.srv.Store.Get(KindLROs, name, &l)
	if !ok || err != nil {
		return nil, false
	}
	return &l, true
}

// ListLRO returns the operations whose names start with prefix.
func (o *Ops) ListLRO(prefix string) []*LRO {
	var out []*LRO
	for _, rec := range o.srv.Store.List(KindLROs, prefix) {
		var l LRO
		if rec.Decode(&l) == nil {
			out = append(out, &l)
		}
	}
	return out
}
