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
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/producer"
	sn "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/servicenetworking"
)

// maxDescription bounds Instance.description (the API's documented limit for descriptions).
const maxDescription = 2048

func (s *Service) createInstance(w http.ResponseWriter, r *http.Request) {
	project, location := r.PathValue("project"), r.PathValue("location")
	id := r.URL.Query().Get("instanceId")
	var in Instance
	if err := core.ReadJSON(r, &in); err != nil {
		producer.Fail(w, r, err)
		return
	}
	net, verr := s.validateCreate(project, location, id, &in)
	if verr != nil {
		producer.Fail(w, r, verr)
		return
	}
	name := producer.Parent(r) + "/instances/" + id
	now := core.RFC3339(s.Now())
	inst := Instance{
		Name: name, Filesystem: in.Filesystem, CapacityGib: in.CapacityGib, Network: in.Network,
		State: stateCreating, CreateTime: now, UpdateTime: now, Description: in.Description, Labels: in.Labels,
		PerUnitStorageThroughput: in.PerUnitStorageThroughput, GkeSupportEnabled: in.GkeSupportEnabled,
		KmsKey: in.KmsKey, UID: uuid.NewString(),
	}
	l, err := s.instances.StartCreate(r, name, &inst, func(tx *core.Tx) (any, error) { return s.completeCreate(tx, name, net) })
	if err != nil {
		producer.Fail(w, r, err)
		return
	}
	s.rememberRequest(r, l)
	core.WriteJSON(w, http.StatusOK, l)
}

// validateCreate applies every synchronous rule of instances.create; the 400 names the first bad field.
func (s *Service) validateCreate(project, location, id string, in *Instance) (sn.NetworkRef, *core.APIError) {
	var none sn.NetworkRef
	if id == "" {
		return none, producer.BadRequest("instance_id: an instance ID is required.")
	}
	if err := catalog.ValidateLustreInstanceID(id); err != nil {
		return none, producer.BadRequest("instance_id: %v.", err)
	}
	if err := catalog.ValidateZone(location); err != nil {
		return none, producer.BadRequest("parent: Managed Lustre instances live in a zone: %v.", err)
	}
	if err := catalog.ValidateLustreFilesystem(in.Filesystem); err != nil {
		return none, producer.BadRequest("instance.filesystem: %v.", err)
	}
	if err := catalog.ValidateLustreThroughput(in.PerUnitStorageThroughput); err != nil {
		return none, producer.BadRequest("instance.per_unit_storage_throughput: %v.", err)
	}
	if in.CapacityGib <= 0 {
		return none, producer.BadRequest("instance.capacity_gib: a capacity is required.")
	}
	if err := catalog.ValidateLustreCapacity(in.PerUnitStorageThroughput, in.CapacityGib); err != nil {
		return none, producer.BadRequest("instance.capacity_gib: %v.", err)
	}
	if len(in.Description) > maxDescription {
		return none, producer.BadRequest("instance.description: must be at most %d characters, got %d.", maxDescription, len(in.Description))
	}
	if err := producer.ValidateLabels("instance.labels", in.Labels); err != nil {
		return none, err
	}
	if in.Network == "" {
		return none, producer.BadRequest("instance.network: the VPC network is required (projects/{project}/global/networks/{network}).")
	}
	net, err := sn.ParseNetwork(s.Store, in.Network, project)
	if err != nil {
		return none, producer.BadRequest("instance.network: %v.", err)
	}
	if e := sn.CheckPrivateServiceAccess(s.Store, net, "", "instance.network", ""); e != nil {
		return none, e
	}
	return net, nil
}

// completeCreate runs when the create operation ends: capacity check, IP block, mount point, backing
// directory, ACTIVE.
func (s *Service) completeCreate(tx *core.Tx, name string, net sn.NetworkRef) (any, error) {
	inst, err := s.instances.Creating(tx, name)
	if err != nil {
		return nil, err
	}
	project, location := producer.NameParts(name)
	if producer.StorageStockout(s.Faults, location, fmt.Sprintf("lustre/%d", inst.PerUnitStorageThroughput)) {
		return nil, producer.StockoutError(project, location)
	}
	a, err := sn.AllocatePSA(tx, sn.BlockRequest{Network: net, Owner: name, Service: ProducerService, PrefixLength: sn.LustreBlockPrefix})
	if err != nil {
		return nil, err
	}
	inst.MountPoint = a.Host(2) + "@tcp:/" + inst.Filesystem
	inst.State = stateActive
	inst.UpdateTime = core.RFC3339(s.Now())
	if err := s.backings.Current().Ensure(producer.InstanceDir(name)...); err != nil {
		return nil, err
	}
	return s.instances.Finish(tx, name, inst)
}

// updatable are the update_mask paths instances.patch accepts; immutable are the settable fields it refuses.
var (
	updatable = []string{"capacity_gib", "description", "labels"}
	immutable = []string{"filesystem", "network", "per_unit_storage_throughput", "kms_key", "gke_support_enabled"}
)

func (s *Service) patchInstance(w http.ResponseWriter, r *http.Request) {
	name, in, cur, paths, err := s.instances.ReadPatch(r, updatable)
	if err != nil {
		producer.Fail(w, r, err)
		return
	}
	for _, p := range paths {
		switch {
		case p == "capacity_gib":
			if in.CapacityGib != cur.CapacityGib {
				if err := catalog.ValidateLustreResize(cur.PerUnitStorageThroughput, cur.CapacityGib, in.CapacityGib); err != nil {
					producer.Fail(w, r, producer.BadRequest("instance.capacity_gib: %v.", err))
					return
				}
			}
		case p == "description":
			if len(in.Description) > maxDescription {
				producer.Fail(w, r, producer.BadRequest("instance.description: must be at most %d characters, got %d.", maxDescription, len(in.Description)))
				return
			}
		case p == "labels":
			if err := producer.ValidateLabels("instance.labels", in.Labels); err != nil {
				producer.Fail(w, r, err)
				return
			}
		case slices.Contains(immutable, p):
			producer.Fail(w, r, producer.BadRequest("update_mask: field '%s' is immutable; create a new instance to change it.", p))
			return
		default:
			producer.Fail(w, r, producer.BadRequest("update_mask: field '%s' cannot be updated; updatable fields are %s.", p, strings.Join(updatable, ", ")))
			return
		}
	}
	l, err := s.instances.StartPatch(r, name, cur, func(now *Instance) {
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
	})
	if err != nil {
		producer.Fail(w, r, err)
		return
	}
	s.rememberRequest(r, l)
	core.WriteJSON(w, http.StatusOK, l)
}

func (s *Service) deleteInstance(w http.ResponseWriter, r *http.Request) {
	l, err := s.instances.StartDelete(r, nil, func() (any, error) { return core.Typed(emptyTypeURL, struct{}{}), nil })
	if err != nil {
		producer.Fail(w, r, err)
		return
	}
	s.rememberRequest(r, l)
	core.WriteJSON(w, http.StatusOK, l)
}

// metadata renders the Lustre OperationMetadata of an operation on target started now.
func (s *Service) metadata(target, verb string) func(done bool, now time.Time) any {
	start := core.RFC3339(s.Now())
	return func(done bool, now time.Time) any {
		m := operationMetadata{Type: metadataTypeURL, CreateTime: start, Target: target, Verb: verb, APIVersion: "v1"}
		if done {
			m.EndTime = core.RFC3339(now)
		}
		return m
	}
}
