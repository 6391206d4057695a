package core

import (
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

func (o *Ops) completeCompute(key string, spec ComputeOp, fail error) {
	_ = o.srv.Store.Update(func(tx *Tx) error {
		var op computepb.Operation
		recorded, _ := tx.Get(KindComputeOperations, key, &op)
		var apply func() error
		if spec.Apply != nil {
			apply = func() error { return spec.Apply(tx, &op) }
		}
		opErr := o.doWork(tx, fail, apply, spec.Rollback)
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
