package lustre

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	sn "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/servicenetworking"
	wire "github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

// maxDescription bounds Instance.description (the API's documented limit for descriptions).
const maxDescription = 2048

func (s *Service) createInstance(w http.ResponseWriter, r *http.Request) {
	project, location := r.PathValue("project"), r.PathValue("location")
	id := r.URL.Query().Get("instanceId")
	var in wire.Instance
	if err := core.ReadJSON(r, &in); err != nil {
		fail(w, r, err)
		return
	}
	net, verr := s.validateCreate(project, location, id, &in)
	if verr != nil {
		fail(w, r, verr)
		return
	}
	name := parent(r) + "/instances/" + id
	now := core.RFC3339(s.Now())
	inst := wire.Instance{
		Name: name, Filesystem: in.Filesystem, CapacityGib: in.CapacityGib, Network: in.Network,
		State: wire.StateCreating, CreateTime: now, UpdateTime: now, Description: in.Description, Labels: in.Labels,
		PerUnitStorageThroughput: in.PerUnitStorageThroughput, GkeSupportEnabled: in.GkeSupportEnabled,
		KmsKey: in.KmsKey, UID: uuid.NewString(),
	}
	err := s.Store.Update(func(tx *core.Tx) error {
		if tx.Exists(KindInstances, name) {
			return core.GoogleError(http.StatusConflict, "Resource '%s' already exists", name)
		}
		return tx.Put(KindInstances, name, inst)
	})
	if err != nil {
		fail(w, r, err)
		return
	}
	l := s.Ops.StartLRO(r, core.LROSpec{
		Parent:   parent(r),
		Metadata: s.metadata(name, "create"),
		Apply:    func(tx *core.Tx) (any, error) { return s.completeCreate(tx, name, net) },
		Rollback: func(tx *core.Tx) {
			var cur wire.Instance
			if ok, _ := tx.Get(KindInstances, name, &cur); ok && cur.State == wire.StateCreating {
				tx.Delete(KindInstances, name)
			}
		},
	})
	s.rememberRequest(r, l)
	core.WriteJSON(w, http.StatusOK, l)
}

// validateCreate applies every synchronous rule of instances.create; the 400 names the first bad field.
func (s *Service) validateCreate(project, location, id string, in *wire.Instance) (sn.NetworkRef, *core.APIError) {
	var none sn.NetworkRef
	if id == "" {
		return none, badRequest("instance_id: an instance ID is required.")
	}
	if err := catalog.ValidateLustreInstanceID(id); err != nil {
		return none, badRequest("instance_id: %v.", err)
	}
	if err := catalog.ValidateZone(location); err != nil {
		return none, badRequest("parent: Managed Lustre instances live in a zone: %v.", err)
	}
	if err := catalog.ValidateLustreFilesystem(in.Filesystem); err != nil {
		return none, badRequest("instance.filesystem: %v.", err)
	}
	if err := catalog.ValidateLustreThroughput(in.PerUnitStorageThroughput); err != nil {
		return none, badRequest("instance.per_unit_storage_throughput: %v.", err)
	}
	if in.CapacityGib <= 0 {
		return none, badRequest("instance.capacity_gib: a capacity is required.")
	}
	if err := catalog.ValidateLustreCapacity(in.PerUnitStorageThroughput, in.CapacityGib); err != nil {
		return none, badRequest("instance.capacity_gib: %v.", err)
	}
	if len(in.Description) > maxDescription {
		return none, badRequest("instance.description: must be at most %d characters, got %d.", maxDescription, len(in.Description))
	}
	if err := sn.ValidateLabels("instance.labels", in.Labels); err != nil {
		return none, err
	}
	if in.Network == "" {
		return none, badRequest("instance.network: the VPC network is required (projects/{project}/global/networks/{network}).")
	}
	net, err := sn.ParseNetwork(s.Store, in.Network, project)
	if err != nil {
		return none, badRequest("instance.network: %v.", err)
	}
	if e := sn.CheckPrivateServiceAccess(s.Store, net, "", "instance.network", ""); e != nil {
		return none, e
	}
	return net, nil
}

// completeCreate runs when the create operation ends: capacity check, IP block, mount point, backing
// directory, ACTIVE.
func (s *Service) completeCreate(tx *core.Tx, name string, net sn.NetworkRef) (any, error) {
	var inst wire.Instance
	if ok, _ := tx.Get(KindInstances, name, &inst); !ok || inst.State != wire.StateCreating {
		return nil, core.NewOpError(http.StatusConflict, "ABORTED", fmt.Sprintf("Instance '%s' was deleted before its creation completed.", name))
	}
	project, location := nameParts(name)
	if sn.StorageStockout(s.Faults, location, fmt.Sprintf("lustre/%d", inst.PerUnitStorageThroughput)) {
		return nil, sn.StockoutError(project, location)
	}
	a, err := sn.AllocatePSA(tx, sn.BlockRequest{Network: net, Owner: name, Service: ProducerService, PrefixLength: sn.LustreBlockPrefix})
	if err != nil {
		return nil, err
	}
	inst.MountPoint = a.Host(2) + "@tcp:/" + inst.Filesystem
	inst.State = wire.StateActive
	inst.UpdateTime = core.RFC3339(s.Now())
	if err := s.dirs().Ensure(backingPath(name)...); err != nil {
		return nil, err
	}
	if err := tx.Put(KindInstances, name, inst); err != nil {
		return nil, err
	}
	return wire.AnyJSON(wire.InstanceTypeURL, inst)
}

func (s *Service) getInstance(w http.ResponseWriter, r *http.Request) {
	name := instanceName(r)
	b, ok := s.Store.GetRaw(KindInstances, name)
	if !ok {
		fail(w, r, core.GoogleNotFound(name))
		return
	}
	core.WriteJSON(w, http.StatusOK, b)
}

func (s *Service) listInstances(w http.ResponseWriter, r *http.Request) {
	prefix := parent(r) + "/instances/"
	if r.PathValue("location") == "-" {
		prefix = "projects/" + r.PathValue("project") + "/locations/"
	}
	items, next, err := core.Page(r, s.Store.List(KindInstances, prefix))
	if err != nil {
		fail(w, r, err)
		return
	}
	body := map[string]any{}
	if len(items) > 0 {
		body["instances"] = items
	}
	if next != "" {
		body["nextPageToken"] = next
	}
	core.WriteJSON(w, http.StatusOK, body)
}

// updatable are the update_mask paths instances.patch accepts; immutable are the settable fields it refuses.
var (
	updatable = []string{"capacity_gib", "description", "labels"}
	immutable = []string{"filesystem", "network", "per_unit_storage_throughput", "kms_key", "gke_support_enabled"}
)

func (s *Service) patchInstance(w http.ResponseWriter, r *http.Request) {
	name := instanceName(r)
	var in wire.Instance
	if err := core.ReadJSON(r, &in); err != nil {
		fail(w, r, err)
		return
	}
	var cur wire.Instance
	if ok, _ := s.Store.Get(KindInstances, name, &cur); !ok {
		fail(w, r, core.GoogleNotFound(name))
		return
	}
	paths := sn.MaskPaths(r.URL.Query().Get("updateMask"))
	if len(paths) == 0 {
		fail(w, r, badRequest("update_mask: at least one field path is required (updatable: %s).", strings.Join(updatable, ", ")))
		return
	}
	for _, p := range paths {
		switch {
		case p == "capacity_gib":
			if in.CapacityGib != cur.CapacityGib {
				if err := catalog.ValidateLustreResize(cur.PerUnitStorageThroughput, cur.CapacityGib, in.CapacityGib); err != nil {
					fail(w, r, badRequest("instance.capacity_gib: %v.", err))
					return
				}
			}
		case p == "description":
			if len(in.Description) > maxDescription {
				fail(w, r, badRequest("instance.description: must be at most %d characters, got %d.", maxDescription, len(in.Description)))
				return
			}
		case p == "labels":
			if err := sn.ValidateLabels("instance.labels", in.Labels); err != nil {
				fail(w, r, err)
				return
			}
		case slices.Contains(immutable, p):
			fail(w, r, badRequest("update_mask: field '%s' is immutable; create a new instance to change it.", p))
			return
		default:
			fail(w, r, badRequest("update_mask: field '%s' cannot be updated; updatable fields are %s.", p, strings.Join(updatable, ", ")))
			return
		}
	}
	if cur.State != wire.StateActive {
		fail(w, r, failedPrecondition("Instance '%s' is %s; it can only be updated when ACTIVE.", name, cur.State))
		return
	}
	l := s.Ops.StartLRO(r, core.LROSpec{
		Parent:   parent(r),
		Metadata: s.metadata(name, "update"),
		Apply: func(tx *core.Tx) (any, error) {
			var now wire.Instance
			if ok, _ := tx.Get(KindInstances, name, &now); !ok {
				return nil, core.NewOpError(http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("Resource '%s' was not found", name))
			}
			for _, p := range paths {
				switch p {
				case "capacity_gib":
					now.CapacityGib = in.CapacityGib
				case "description":
					now.Description = in.Description
				case "labels":
					now.Labels = in.Labels
				}
			}
			now.UpdateTime = core.RFC3339(s.Now())
			if err := tx.Put(KindInstances, name, now); err != nil {
				return nil, err
			}
			return wire.AnyJSON(wire.InstanceTypeURL, now)
		},
	})
	s.rememberRequest(r, l)
	core.WriteJSON(w, http.StatusOK, l)
}

func (s *Service) deleteInstance(w http.ResponseWriter, r *http.Request) {
	name := instanceName(r)
	var prev wire.Instance
	err := s.Store.Update(func(tx *core.Tx) error {
		if ok, _ := tx.Get(KindInstances, name, &prev); !ok {
			return core.GoogleNotFound(name)
		}
		if prev.State == wire.StateDeleting {
			return failedPrecondition("Instance '%s' is already being deleted.", name)
		}
		next := prev
		next.State = wire.StateDeleting
		return tx.Put(KindInstances, name, next)
	})
	if err != nil {
		fail(w, r, err)
		return
	}
	l := s.Ops.StartLRO(r, core.LROSpec{
		Parent:   parent(r),
		Metadata: s.metadata(name, "delete"),
		Apply: func(tx *core.Tx) (any, error) {
			sn.ReleaseOwner(tx, name)
			tx.Delete(KindInstances, name)
			return wire.AnyJSON(wire.EmptyTypeURL, nil)
		},
		Rollback: func(tx *core.Tx) {
			var cur wire.Instance
			if ok, _ := tx.Get(KindInstances, name, &cur); ok && cur.State == wire.StateDeleting {
				cur.State = prev.State
				_ = tx.Put(KindInstances, name, cur)
			}
		},
	})
	s.rememberRequest(r, l)
	core.WriteJSON(w, http.StatusOK, l)
}

// metadata renders the Lustre OperationMetadata of an operation on target started now.
func (s *Service) metadata(target, verb string) func(done bool, now time.Time) any {
	start := core.RFC3339(s.Now())
	return func(done bool, now time.Time) any {
		m := wire.OperationMetadata{Type: wire.OperationMetadataTypeURL, CreateTime: start, Target: target, Verb: verb, APIVersion: "v1"}
		if done {
			m.EndTime = core.RFC3339(now)
		}
		return m
	}
}

// nameParts returns the project and location of projects/{p}/locations/{l}/...
func nameParts(name string) (project, location string) {
	parts := strings.Split(name, "/")
	if len(parts) >= 4 {
		return parts[1], parts[3]
	}
	return "", ""
}
