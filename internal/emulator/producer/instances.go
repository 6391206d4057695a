package producer

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	sn "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/servicenetworking"
)

// Lifecycle states the shared handlers set and test; both APIs spell them the same.
const (
	StateCreating = "CREATING"
	StateDeleting = "DELETING"
)

// Instances is the instance lifecycle of one producer API over its wire type T (stored as JSON under Kind):
// the handlers of get and list, and the store and operation steps of create, patch and delete that do not
// depend on T's fields.
type Instances[T any] struct {
	*core.Server
	Kind string
	// Ready is the state an instance serves in ("READY", "ACTIVE"); only then can it be updated.
	Ready string
	// State reads an instance's state; SetState sets it to one State returned or to a lifecycle state.
	State    func(*T) string
	SetState func(*T, string)
	// Clone copies an instance deeply enough that setting its state leaves the original alone.
	Clone func(*T) *T
	// Response is the operation response (an Any) for an instance.
	Response func(*T) (any, error)
	// Metadata renders the operation metadata of verb on target, for an operation started now.
	Metadata func(target, verb string) func(done bool, now time.Time) any
}

// Get serves instances.get.
func (p Instances[T]) Get(w http.ResponseWriter, r *http.Request) {
	name := InstanceName(r)
	b, ok := p.Store.GetRaw(p.Kind, name)
	if !ok {
		Fail(w, r, core.GoogleNotFound(name))
		return
	}
	core.WriteJSON(w, http.StatusOK, b)
}

// List serves instances.list.
func (p Instances[T]) List(w http.ResponseWriter, r *http.Request) {
	writePage(w, r, "instances", p.Store.List(p.Kind, listPrefix(r, "instances")))
}

// StartCreate stores inst (in state CREATING) as name unless the name is taken, and starts the create
// operation; complete runs when it ends. A failed operation removes the instance again if it is still
// CREATING.
func (p Instances[T]) StartCreate(r *http.Request, name string, inst *T, complete func(tx *core.Tx) (any, error)) (*core.LRO, error) {
	err := p.Store.Update(func(tx *core.Tx) error {
		if tx.Exists(p.Kind, name) {
			return core.GoogleError(http.StatusConflict, "Resource '%s' already exists", name)
		}
		return tx.Put(p.Kind, name, inst)
	})
	if err != nil {
		return nil, err
	}
	return p.Ops.StartLRO(r, core.LROSpec{
		Parent:   Parent(r),
		Metadata: p.Metadata(name, "create"),
		Apply:    complete,
		Rollback: func(tx *core.Tx) {
			var cur T
			if ok, _ := tx.Get(p.Kind, name, &cur); ok && p.State(&cur) == StateCreating {
				tx.Delete(p.Kind, name)
			}
		},
	}), nil
}

// Creating loads name for the end of its create operation: ABORTED when it was deleted meanwhile.
func (p Instances[T]) Creating(tx *core.Tx, name string) (*T, error) {
	var inst T
	if ok, _ := tx.Get(p.Kind, name, &inst); !ok || p.State(&inst) != StateCreating {
		return nil, core.NewOpError(http.StatusConflict, "ABORTED", fmt.Sprintf("Instance '%s' was deleted before its creation completed.", name))
	}
	return &inst, nil
}

// Finish stores inst as name and returns it as the operation's response.
func (p Instances[T]) Finish(tx *core.Tx, name string, inst *T) (any, error) {
	if err := tx.Put(p.Kind, name, inst); err != nil {
		return nil, err
	}
	return p.Response(inst)
}

// ReadPatch reads an instances.patch request: the requested values, the current instance and the
// update_mask paths (snake_case; at least one, or the 400 lists updatable).
func (p Instances[T]) ReadPatch(r *http.Request, updatable []string) (name string, in, cur *T, paths []string, err error) {
	name = InstanceName(r)
	in, cur = new(T), new(T)
	if err := core.ReadJSON(r, in); err != nil {
		return name, nil, nil, nil, err
	}
	if ok, _ := p.Store.Get(p.Kind, name, cur); !ok {
		return name, nil, nil, nil, core.GoogleNotFound(name)
	}
	paths = MaskPaths(r.URL.Query().Get("updateMask"))
	if len(paths) == 0 {
		return name, nil, nil, nil, BadRequest("update_mask: at least one field path is required (updatable: %s).", strings.Join(updatable, ", "))
	}
	return name, in, cur, paths, nil
}

// StartPatch starts the update operation of a validated patch once cur is Ready; apply changes the
// instance as it is when the operation ends.
func (p Instances[T]) StartPatch(r *http.Request, name string, cur *T, apply func(now *T)) (*core.LRO, error) {
	if st := p.State(cur); st != p.Ready {
		return nil, FailedPrecondition("Instance '%s' is %s; it can only be updated when %s.", name, st, p.Ready)
	}
	return p.Ops.StartLRO(r, core.LROSpec{
		Parent:   Parent(r),
		Metadata: p.Metadata(name, "update"),
		Apply: func(tx *core.Tx) (any, error) {
			var now T
			if ok, _ := tx.Get(p.Kind, name, &now); !ok {
				return nil, core.NewOpError(http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("Resource '%s' was not found", name))
			}
			apply(&now)
			return p.Finish(tx, name, &now)
		},
	}), nil
}

// StartDelete marks the instance of the request DELETING and starts the delete operation, which releases
// its IP block and removes it (empty is the operation's response); a failed operation restores the state it
// had. refuse, when not nil, may veto the delete first (e.g. deletion protection).
func (p Instances[T]) StartDelete(r *http.Request, refuse func(name string, prev *T) error, empty func() (any, error)) (*core.LRO, error) {
	name := InstanceName(r)
	var prevState string
	err := p.Store.Update(func(tx *core.Tx) error {
		var prev T
		if ok, _ := tx.Get(p.Kind, name, &prev); !ok {
			return core.GoogleNotFound(name)
		}
		if refuse != nil {
			if err := refuse(name, &prev); err != nil {
				return err
			}
		}
		prevState = p.State(&prev)
		if prevState == StateDeleting {
			return FailedPrecondition("Instance '%s' is already being deleted.", name)
		}
		next := p.Clone(&prev)
		p.SetState(next, StateDeleting)
		return tx.Put(p.Kind, name, next)
	})
	if err != nil {
		return nil, err
	}
	return p.Ops.StartLRO(r, core.LROSpec{
		Parent:   Parent(r),
		Metadata: p.Metadata(name, "delete"),
		Apply: func(tx *core.Tx) (any, error) {
			sn.ReleaseOwner(tx, name)
			tx.Delete(p.Kind, name)
			return empty()
		},
		Rollback: func(tx *core.Tx) {
			var cur T
			if ok, _ := tx.Get(p.Kind, name, &cur); ok && p.State(&cur) == StateDeleting {
				p.SetState(&cur, prevState)
				_ = tx.Put(p.Kind, name, &cur)
			}
		},
	}), nil
}
