package core

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

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
		var resp any
		var apply func() error
		if spec.Apply != nil {
			apply = func() error {
				var e error
				resp, e = spec.Apply(tx)
				return e
			}
		}
		opErr := o.doWork(tx, fail, apply, spec.Rollback)
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
