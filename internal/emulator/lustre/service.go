// Package lustre emulates the Managed Lustre v1 API (lustre.googleapis.com) under /lustre/v1/...: instances
// (create, get, list, patch, delete) and their long-running operations. The JSON is the REST reference's,
// in the emulator's own types (wire.go): the emulator imports none of the provider's clients, so a field the
// client misnames cannot be confirmed by a shared struct. Capacity, throughput, filesystem and instance-ID
// rules are the catalog's.
//
// An instance needs private service access on its network: it takes a /24 from the connected ranges
// (servicenetworking allocator), and its mountPoint is "IP@tcp:/FILESYSTEM". When the emulator has a data
// directory each instance is backed by one, which ResolveMount finds from that mount point. Deletion
// protection is the provider's business: the API has none, so neither has the emulator.
package lustre

import (
	"net/http"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/producer"
)

// Store kinds of this package.
const (
	// KindInstances holds the instances; key projects/{p}/locations/{zone}/instances/{id} (the resource
	// name), value an Instance (wire.go) as JSON.
	KindInstances = "lustre.instances"
	// KindRequests remembers the operation each requestId started; key {project}/{requestId}, value the
	// operation name (bookkeeping: "emulator." keeps it out of the default inventory). A retried call with the same requestId answers that operation instead of acting twice.
	KindRequests = "emulator.lustreRequests"
)

// ProducerService names Managed Lustre in the IP blocks it holds (servicenetworking.Allocation.Service).
const ProducerService = "lustre.googleapis.com"

const (
	prefix    = "/lustre/v1/projects/{project}/locations/{location}"
	instances = prefix + "/instances"
	instance  = instances + "/{instance}"
)

// Options configure the Managed Lustre API.
type Options struct {
	// DataDir is the emulator's data directory; instances are backed by
	// DataDir/lustre/{project}/{location}/{instance}. Empty: no backing directories.
	DataDir string
}

// Service is the Managed Lustre API bound to the emulator core.
type Service struct {
	*core.Server
	instances producer.Instances[Instance]
	backings  *producer.Backings
}

// ComponentName is the name Register provides the Service under (srv.Component).
const ComponentName = "lustre"

// Register mounts the Managed Lustre API on srv.
func Register(srv *core.Server, opts Options) *Service {
	s := &Service{Server: srv}
	s.instances = producer.Instances[Instance]{
		Server: srv, Kind: KindInstances, Ready: stateActive,
		State:    func(i *Instance) string { return i.State },
		SetState: func(i *Instance, st string) { i.State = st },
		Clone:    func(i *Instance) *Instance { c := *i; return &c },
		Response: func(i *Instance) (any, error) { return core.Typed(instanceTypeURL, *i), nil },
		Metadata: s.metadata,
	}
	s.Router.Handle("POST "+instances, "lustre.projects.locations.instances.create", core.Mutating, s.idempotent(s.createInstance))
	s.Router.Handle("GET "+instances, "lustre.projects.locations.instances.list", core.Read, s.instances.List)
	s.Router.Handle("GET "+instance, "lustre.projects.locations.instances.get", core.Read, s.instances.Get)
	s.Router.Handle("PATCH "+instance, "lustre.projects.locations.instances.patch", core.Mutating, s.idempotent(s.patchInstance))
	s.Router.Handle("DELETE "+instance, "lustre.projects.locations.instances.delete", core.Mutating, s.idempotent(s.deleteInstance))
	s.Router.Handle("GET "+prefix+"/operations/{operation}", "lustre.projects.locations.operations.get", core.Read, producer.GetOperation(srv))
	s.Router.Handle("GET "+prefix+"/operations", "lustre.projects.locations.operations.list", core.Read, producer.ListOperations(srv, metadataTypeURL))
	s.backings = producer.NewBackings(srv, KindInstances, ComponentName, "Lustre", instanceDir)
	s.backings.Register(ComponentName, opts.DataDir, s)
	return s
}

// idempotent answers a repeated requestId with the operation the first call started.
func (s *Service) idempotent(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if id := r.URL.Query().Get("requestId"); id != "" {
			var opName string
			if ok, _ := s.Store.Get(KindRequests, r.PathValue("project")+"/"+id, &opName); ok {
				if l, ok := s.Ops.GetLRO(opName); ok {
					core.WriteJSON(w, http.StatusOK, l)
					return
				}
			}
		}
		h(w, r)
	}
}

// rememberRequest records the operation a requestId started.
func (s *Service) rememberRequest(r *http.Request, l *core.LRO) {
	if id := r.URL.Query().Get("requestId"); id != "" {
		_ = s.Store.Put(KindRequests, r.PathValue("project")+"/"+id, l.Name)
	}
}
