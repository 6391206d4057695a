// Package lustre emulates the Managed Lustre v1 API (lustre.googleapis.com) under /lustre/v1/...: instances
// (create, get, list, patch, delete) and their long-running operations. The JSON is that of the provider's
// own client types (internal/gcp/lustre), the one definition of the wire format, so client and fake cannot
// drift apart. Capacity, throughput, filesystem and instance-ID rules are the catalog's.
//
// An instance needs private service access on its network: it takes a /24 from the connected ranges
// (servicenetworking allocator), and its mountPoint is "IP@tcp:/FILESYSTEM". When the emulator has a data
// directory each instance is backed by one, which ResolveMount finds from that mount point. Deletion
// protection is the provider's business: the API has none, so neither has the emulator.
package lustre

import (
	"net/http"
	"sync/atomic"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/servicenetworking"
)

// Store kinds of this package.
const (
	// KindInstances holds the instances; key projects/{p}/locations/{zone}/instances/{id} (the resource
	// name), value a lustre.Instance (internal/gcp/lustre) as JSON.
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
	backing atomic.Pointer[servicenetworking.Backing]
}

// ComponentName is the name Register provides the Service under (srv.Component).
const ComponentName = "lustre"

// Register mounts the Managed Lustre API on srv.
func Register(srv *core.Server, opts Options) *Service {
	s := &Service{Server: srv}
	s.Router.Handle("POST "+instances, "lustre.projects.locations.instances.create", core.Mutating, s.idempotent(s.createInstance))
	s.Router.Handle("GET "+instances, "lustre.projects.locations.instances.list", core.Read, s.listInstances)
	s.Router.Handle("GET "+instance, "lustre.projects.locations.instances.get", core.Read, s.getInstance)
	s.Router.Handle("PATCH "+instance, "lustre.projects.locations.instances.patch", core.Mutating, s.idempotent(s.patchInstance))
	s.Router.Handle("DELETE "+instance, "lustre.projects.locations.instances.delete", core.Mutating, s.idempotent(s.deleteInstance))
	s.Router.Handle("GET "+prefix+"/operations/{operation}", "lustre.projects.locations.operations.get", core.Read, s.getOperation)
	s.Router.Handle("GET "+prefix+"/operations", "lustre.projects.locations.operations.list", core.Read, s.listOperations)
	s.watchBacking()
	if opts.DataDir != "" {
		if err := s.SetDataDir(opts.DataDir); err != nil {
			s.Log.Error("preparing backing directories", "api", ComponentName, "err", err)
		}
	}
	srv.Provide(ComponentName, s)
	return s
}

func fail(w http.ResponseWriter, r *http.Request, err error) { core.WriteError(w, r, err) }

func parent(r *http.Request) string {
	return "projects/" + r.PathValue("project") + "/locations/" + r.PathValue("location")
}

func instanceName(r *http.Request) string { return parent(r) + "/instances/" + r.PathValue("instance") }

func badRequest(format string, args ...any) *core.APIError {
	return core.GoogleError(http.StatusBadRequest, format, args...)
}

func failedPrecondition(format string, args ...any) *core.APIError {
	e := core.GoogleError(http.StatusBadRequest, format, args...)
	e.Status = "FAILED_PRECONDITION"
	return e
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
