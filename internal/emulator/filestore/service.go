// Package filestore emulates the Filestore v1 API (file.googleapis.com) under /filestore/v1/...: instances
// (create, get, list, patch, delete) and their long-running operations, in the wire format of the official
// REST client (cloud.google.com/go/filestore/apiv1, filestorepb + protojson). Tier, capacity, share-name and
// location rules are the catalog's, the same the provider checks at plan time.
//
// An instance takes its IP block from the network's private service access ranges (or a direct-peering
// range) through the servicenetworking allocator, and, when the emulator has a data directory, is backed by a
// directory that ResolveMount finds from the "IP:/share" a VM mounts.
package filestore

import (
	"net/http"
	"sync/atomic"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/servicenetworking"
)

// KindInstances holds the instances; key projects/{p}/locations/{loc}/instances/{id} (the resource name),
// value a filestorepb.Instance in protojson.
const KindInstances = "file.instances"

// ProducerService names Filestore in the IP blocks it holds (servicenetworking.Allocation.Service).
const ProducerService = "file.googleapis.com"

// Type URLs of the Any values in Filestore operations.
const (
	instanceTypeURL = "type.googleapis.com/google.cloud.filestore.v1.Instance"
	metadataTypeURL = "type.googleapis.com/google.cloud.common.OperationMetadata"
	emptyTypeURL    = "type.googleapis.com/google.protobuf.Empty"
)

const (
	prefix    = "/filestore/v1/projects/{project}/locations/{location}"
	instances = prefix + "/instances"
	instance  = instances + "/{instance}"
)

// Options configure the Filestore API.
type Options struct {
	// DataDir is the emulator's data directory; instances are backed by
	// DataDir/filestore/{project}/{location}/{instance}/{share}. Empty: no backing directories.
	DataDir string
}

// Service is the Filestore API bound to the emulator core.
type Service struct {
	*core.Server
	backing atomic.Pointer[servicenetworking.Backing]
}

// ComponentName is the name Register provides the Service under (srv.Component).
const ComponentName = "filestore"

// Register mounts the Filestore API on srv.
func Register(srv *core.Server, opts Options) *Service {
	s := &Service{Server: srv}
	s.Router.Handle("POST "+instances, "file.projects.locations.instances.create", core.Mutating, s.createInstance)
	s.Router.Handle("GET "+instances, "file.projects.locations.instances.list", core.Read, s.listInstances)
	s.Router.Handle("GET "+instance, "file.projects.locations.instances.get", core.Read, s.getInstance)
	s.Router.Handle("PATCH "+instance, "file.projects.locations.instances.patch", core.Mutating, s.patchInstance)
	s.Router.Handle("DELETE "+instance, "file.projects.locations.instances.delete", core.Mutating, s.deleteInstance)
	s.Router.Handle("GET "+prefix+"/operations/{operation}", "file.projects.locations.operations.get", core.Read, s.getOperation)
	s.Router.Handle("GET "+prefix+"/operations", "file.projects.locations.operations.list", core.Read, s.listOperations)
	// The generated client's Operation.Wait polls "/v1/{name}", replacing the whole path of the endpoint and
	// so dropping the /filestore prefix; this route serves those polls.
	s.Router.Handle("GET /v1/projects/{project}/locations/{location}/operations/{operation}", "file.projects.locations.operations.get", core.Read, s.getOperation)
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

// failedPrecondition is the synchronous FAILED_PRECONDITION answer (HTTP 400, as Google's front ends map it).
func failedPrecondition(format string, args ...any) *core.APIError {
	e := core.GoogleError(http.StatusBadRequest, format, args...)
	e.Status = "FAILED_PRECONDITION"
	return e
}
