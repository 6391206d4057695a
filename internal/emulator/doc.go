// Package emulator is the local cloud: one http.Handler serving the Google Cloud APIs hypercompute uses, faithful
// to shared/facts/gcp-apis.md, plus an admin API (documented in the README) for fault injection and inspection. It runs as the
// hypercompute-emulator process and in-process in Go tests (package emulatortest).
//
// # Layout
//
//	emulator/            New, Handler, Serve, Close, Inventory, admin API, the list of services (services.go)
//	emulator/core/       what every API is built on: Server, Router, Store, Ops, Faults, Quotas, Calls, errors,
//	                     list paging and filters, snapshots, projects/<number> paths resolved to the project id
//	emulator/compute/    Compute Engine: projects, networks, subnetworks, firewalls, routers, addresses,
//	                     zones/regions/machineTypes/acceleratorTypes/networkProfiles, zone/region/global operations
//	emulator/emulatortest/  Start(t) for tests
//	(others)             instances, metadata, filestore, lustre, servicenetworking, runtime
//
// # Adding an API
//
// A service package exports a registration function and is listed in services.go:
//
//	func Register(srv *core.Server) { ... }        // services.go: filestore.Register,
//
// A registration function that returns a value is wrapped: func(s *core.Server) { instances.Register(s) }.
// To let other code reach the service object, call srv.Provide("name", svc); srv.Component("name") returns it
// (the compute package provides "compute").
//
// Routes are net/http ServeMux patterns under the API's prefix, registered with the discovery method id and a
// class:
//
//	srv.Router.Handle("POST /filestore/v1/projects/{project}/locations/{location}/instances",
//		"file.projects.locations.instances.create", core.Mutating, h)
//
// Prefixes: /compute/v1/, /filestore/v1/, /lustre/v1/, /servicenetworking/v1/, /computeMetadata/v1/ (metadata
// server), /emulator/v1/ (admin). Clients configured with an endpoint ending in "/" send "//compute/v1/..."; the
// router collapses the doubled slash. The router counts each call under its method id (core.Read or
// core.Mutating; core.Admin is neither counted nor faulted), applies the error-rate faults of that id before the
// handler runs, and for mutating "compute.*" methods implements requestId idempotency (a repeated requestId in a
// project answers the original operation without running the handler). Inside a handler core.MethodOf(r) is the
// method id. Method ids starting with "compute." answer errors in Compute's format, all others in the Google API
// format ({"error":{"code","message","status"}}); core.WriteError(w, r, err) picks.
//
// # Store
//
// srv.Store holds every resource as JSON by kind and key. Conventions: kind "<api>.<collection>"
// ("compute.networks", "file.instances"), key the resource's relative path ("projects/P/global/networks/N"),
// value the API's wire form (computepb messages are stored with protojson, so Get/Put take proto messages
// directly; other values use encoding/json). Kinds starting "emulator." and the operation kinds are bookkeeping
// that the inventory hides. Reads: Get, GetRaw, Exists, List(kind, keyPrefix) (sorted by key). Writes:
// Store.Update(func(tx *core.Tx) error) is atomic and rolls back when the function fails; Tx has the same
// reads plus Put, Delete, Savepoint/RollbackTo. Store.Watch(fn) sees every committed change (the metadata
// server's wait_for_change and the runtime follow instances this way). Everything in the store is saved by
// --state-file and cleared by reset; state kept elsewhere needs srv.OnReset / srv.OnClose hooks.
//
// Kinds defined so far: compute.networks, compute.subnetworks, compute.firewalls, compute.routers,
// compute.globalAddresses, compute.addresses, compute.projects (only once changed; see compute.DefaultProject),
// compute.reservations (inserted through the API or seeded by POST /emulator/v1/reservations, served by the
// instances package), compute.routes (user routes; system routes are derived), compute.regionDisks,
// compute.operations, lro.operations, emulator.quotas.
//
// # Operations
//
// Compute: srv.Ops.StartCompute(r, core.ComputeOp{Project, Zone|Region, OperationType, TargetLink, TargetID,
// Apply, Rollback, Latency, Manual}) records a RUNNING operation and answers it; after the method's latency
// (latency fault, else Config.OpLatency) Apply runs in a store transaction: the resource change happens there,
// so a resource appears when its operation is DONE. If Apply returns an error (return *core.OpError for a
// specific code: core.OpNotFound, core.OpAlreadyExists, core.OpResourceInUse, core.QuotaExceeded,
// core.ZoneResourcePoolExhausted, core.NewOpError) or a failOperations fault hit the method, Apply's changes
// are undone, Rollback (optional) undoes changes the handler made eagerly, and the operation ends DONE with
// error.errors[], httpErrorStatusCode and httpErrorMessage. Manual operations stay RUNNING until
// srv.Ops.Complete(key, err); srv.Ops.UpdateCompute changes a running operation's record (bulkInsert
// progress). Start operations outside Store.Update: with zero latency they complete at once, in a transaction
// of their own. The compute package serves get/list/delete/wait for zone, region and global operations and
// globalOperations.aggregatedList.
//
// Google long-running operations (Filestore, Lustre, Service Networking): srv.Ops.StartLRO(r, core.LROSpec{Name
// or Parent, Metadata, Apply, Rollback}) returns {name, metadata}; Apply returns the response (use core.Typed
// to add "@type"); failures become a google.rpc.Status error. Serve GET .../operations/{op} with
// srv.Ops.GetLRO(name) (and srv.Ops.Wait for long polls).
//
// # Faults, quotas, counters
//
// Latency and error rates are applied by the core. Handlers consult srv.Faults.Stockout(zone, machineType)
// (then fail the operation with core.ZoneResourcePoolExhausted) and charge srv.Quotas inside their Apply:
// srv.Quotas.ChargeTx(tx, region, map[metric]amount) fails with QUOTA_EXCEEDED and is undone with the
// transaction; ReleaseTx gives back (Charge/Release outside a transaction exist too). Region "global" holds
// project-wide metrics. srv.Calls.Count("compute.networks.insert") reads counters.
//
// # Compute extension points (package compute)
//
// compute.AddDeleteGuard(kind, func(tx, key) (user string)) makes deletes of networks, subnetworks and
// addresses fail with RESOURCE_IN_USE_BY_ANOTHER_RESOURCE while another package's resource uses them (VM NICs,
// Service Networking connections). Network deletion also checks any kind in its own list for a top-level
// "network" or "networkInterfaces[].network"; the Service Networking package adds the peering record to the
// stored network (Network.peerings) itself.
//
// # Runtime
//
// The binary's --runtime flag maps names to attach functions in cmd/hypercompute-emulator/runtime.go; "local"
// is added there by the runtime package. An attach function receives the built emulator before it serves and
// returns a stop function run at close, before the final state save.
package emulator
