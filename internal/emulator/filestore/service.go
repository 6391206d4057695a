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
	"time"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"google.golang.org/genproto/googleapis/cloud/common"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/producer"
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
	instances producer.Instances[filestorepb.Instance]
	backings  *producer.Backings
}

// ComponentName is the name Register provides the Service under (srv.Component).
const ComponentName = "filestore"

// Register mounts the Filestore API on srv.
func Register(srv *core.Server, opts Options) *Service {
	s := &Service{Server: srv}
	s.instances = producer.Instances[filestorepb.Instance]{
		Server: srv, Kind: KindInstances, Ready: filestorepb.Instance_READY.String(),
		State: func(i *filestorepb.Instance) string { return i.GetState().String() },
		SetState: func(i *filestorepb.Instance, st string) {
			i.State = filestorepb.Instance_State(filestorepb.Instance_State_value[st])
		},
		Clone:    func(i *filestorepb.Instance) *filestorepb.Instance { return proto.Clone(i).(*filestorepb.Instance) },
		Response: func(i *filestorepb.Instance) (any, error) { return core.Typed(instanceTypeURL, i), nil },
		Metadata: s.metadata,
	}
	s.Router.Handle("POST "+instances, "file.projects.locations.instances.create", core.Mutating, s.createInstance)
	s.Router.Handle("GET "+instances, "file.projects.locations.instances.list", core.Read, s.instances.List)
	s.Router.Handle("GET "+instance, "file.projects.locations.instances.get", core.Read, s.instances.Get)
	s.Router.Handle("PATCH "+instance, "file.projects.locations.instances.patch", core.Mutating, s.patchInstance)
	s.Router.Handle("DELETE "+instance, "file.projects.locations.instances.delete", core.Mutating, s.deleteInstance)
	getOperation := producer.GetOperation(srv)
	s.Router.Handle("GET "+prefix+"/operations/{operation}", "file.projects.locations.operations.get", core.Read, getOperation)
	s.Router.Handle("GET "+prefix+"/operations", "file.projects.locations.operations.list", core.Read, producer.ListOperations(srv, metadataTypeURL))
	// The generated client's Operation.Wait polls "/v1/{name}", replacing the whole path of the endpoint and
	// so dropping the /filestore prefix; this route serves those polls.
	s.Router.Handle("GET /v1/projects/{project}/locations/{location}/operations/{operation}", "file.projects.locations.operations.get", core.Read, getOperation)
	s.backings = producer.NewBackings(srv, KindInstances, ComponentName, "Filestore", shareDir)
	s.backings.Register(ComponentName, opts.DataDir, s)
	return s
}

// The request helpers every handler uses, shared with Managed Lustre.
var (
	fail               = producer.Fail
	parent             = producer.Parent
	badRequest         = producer.BadRequest
	failedPrecondition = producer.FailedPrecondition
	nameParts          = producer.NameParts
)

// metadata renders common.OperationMetadata for an operation on target started now.
func (s *Service) metadata(target, verb string) func(done bool, now time.Time) any {
	start := s.Now()
	return func(done bool, now time.Time) any {
		m := &common.OperationMetadata{CreateTime: timestamppb.New(start), Target: target, Verb: verb, ApiVersion: "v1"}
		if done {
			m.EndTime = timestamppb.New(now)
		}
		return core.Typed(metadataTypeURL, m)
	}
}

func (s *Service) etag() string { return s.Rand.Hex(16) }
