// Package servicenetworking emulates the Service Networking v1 API (private service access connections) under
// /servicenetworking/v1/..., and gives the producer APIs (Filestore, Managed Lustre) what a real producer gets
// from a peering: the allocated ranges a consumer network has connected, and IP blocks carved out of them.
//
// Connections and the blocks handed out are kept in the core store (kinds KindConnections, KindAllocations),
// so they are transactional with the operations that make them, and snapshots and resets cover them.
// Networks and allocated ranges are the Compute API's own records (compute.KindNetworks,
// compute.KindGlobalAddresses): a connection is only as valid as the Compute state it names.
package servicenetworking

import (
	"net/http"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Store kinds of this package.
const (
	// KindConnections holds one record per network and service;
	// key projects/{projectID}/global/networks/{network}/services/{service}, value a connectionRecord.
	KindConnections = "servicenetworking.connections"
	// KindAllocations holds the IP blocks producers took from a network's ranges (bookkeeping, hence the
	// "emulator." prefix that keeps it out of the default inventory);
	// key projects/{projectID}/global/networks/{network}/allocations/{owner}, value an Allocation.
	KindAllocations = "emulator.psaAllocations"
)

// DefaultService is the producer service Filestore and Managed Lustre peer through.
const DefaultService = "servicenetworking.googleapis.com"

// connectionTypeURL is the @type of a Connection inside an operation's response.
const connectionTypeURL = "type.googleapis.com/google.cloud.servicenetworking.v1.Connection"

// emptyTypeURL is the @type of the empty response of a deleteConnection operation.
const emptyTypeURL = "type.googleapis.com/google.protobuf.Empty"

const prefix = "/servicenetworking/v1"

// ComponentName is the name Register provides the Service under (srv.Component).
const ComponentName = "servicenetworking"

// Service is the Service Networking API bound to the emulator core.
type Service struct {
	*core.Server
}

// Register mounts the Service Networking API on srv.
func Register(srv *core.Server) *Service {
	s := &Service{Server: srv}
	const conns = prefix + "/services/{service}/connections"
	s.Router.Handle("POST "+conns, "servicenetworking.services.connections.create", core.Mutating, s.createConnection)
	s.Router.Handle("GET "+conns, "servicenetworking.services.connections.list", core.Read, s.listConnections)
	s.Router.Handle("PATCH "+conns+"/{name}", "servicenetworking.services.connections.patch", core.Mutating, s.patchConnection)
	// The generated client posts deleteConnection to v1/{+name} (no ":deleteConnection" verb); the verb form
	// of the discovery document's flatPath is accepted too.
	s.Router.Handle("POST "+conns+"/{name}", "servicenetworking.services.connections.deleteConnection", core.Mutating, s.deleteConnection)
	registerPeeredDNSDomains(s)
	s.Router.Handle("GET "+prefix+"/operations/{operation}", "servicenetworking.operations.get", core.Read, s.getOperation)
	srv.Provide(ComponentName, s)
	return s
}

func (s *Service) getOperation(w http.ResponseWriter, r *http.Request) {
	name := "operations/" + r.PathValue("operation")
	l, ok := s.Ops.GetLRO(name)
	if !ok {
		core.WriteError(w, r, core.GoogleError(http.StatusNotFound, "Operation '%s' not found.", name))
		return
	}
	writeOperation(w, l)
}
