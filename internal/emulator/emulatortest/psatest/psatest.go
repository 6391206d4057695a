// Package psatest (used by tests only) starts, inside a Go test, an emulator core serving Compute, Service Networking, Filestore
// and Managed Lustre, with helpers that set up private service access through the real clients. It builds
// the core directly (rather than through emulatortest) so the storage API tests do not depend on how the
// top-level emulator wires its services.
package psatest

import (
	"context"
	"net/http/httptest"
	"testing"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	filestore "cloud.google.com/go/filestore/apiv1"
	"google.golang.org/api/option"
	sn "google.golang.org/api/servicenetworking/v1"
	"google.golang.org/protobuf/proto"

	emucompute "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	emufilestore "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/filestore"
	emulustre "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/lustre"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/servicenetworking"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

// Project is the project the helpers work in.
const Project = "psa-test"

// Env is a running emulator core with the storage APIs and clients pointed at it.
type Env struct {
	URL     string
	Server  *core.Server
	DataDir string

	SN        *servicenetworking.Service
	Filestore *emufilestore.Service
	Lustre    *emulustre.Service

	Networks        *compute.NetworksClient
	Subnetworks     *compute.SubnetworksClient
	GlobalAddresses *compute.GlobalAddressesClient
	ServiceNet      *sn.APIService
	FilestoreClient *filestore.CloudFilestoreManagerClient
	LustreClient    *lustre.Client

	Ctx context.Context
	t   testing.TB
}

// Start runs the core for the test; it stops when the test ends.
func Start(t testing.TB) *Env {
	t.Helper()
	srv := core.NewServer(core.Options{Seed: 1})
	emucompute.Register(srv)
	e := &Env{Server: srv, DataDir: t.TempDir(), Ctx: context.Background(), t: t}
	e.SN = servicenetworking.Register(srv)
	e.Filestore = emufilestore.Register(srv, emufilestore.Options{DataDir: e.DataDir})
	e.Lustre = emulustre.Register(srv, emulustre.Options{DataDir: e.DataDir})
	hs := httptest.NewServer(srv.Router)
	e.URL = hs.URL
	t.Cleanup(func() { hs.Close(); srv.Close() })

	ctx := e.Ctx
	noAuth := option.WithoutAuthentication()
	var err error
	must := func(what string) {
		if err != nil {
			t.Fatalf("psatest: %s client: %v", what, err)
		}
	}
	e.Networks, err = compute.NewNetworksRESTClient(ctx, option.WithEndpoint(e.URL), noAuth)
	must("networks")
	e.Subnetworks, err = compute.NewSubnetworksRESTClient(ctx, option.WithEndpoint(e.URL), noAuth)
	must("subnetworks")
	e.GlobalAddresses, err = compute.NewGlobalAddressesRESTClient(ctx, option.WithEndpoint(e.URL), noAuth)
	must("globalAddresses")
	e.ServiceNet, err = sn.NewService(ctx, option.WithEndpoint(e.URL+"/servicenetworking/"), noAuth)
	must("servicenetworking")
	e.FilestoreClient, err = filestore.NewCloudFilestoreManagerRESTClient(ctx, option.WithEndpoint(e.URL+"/filestore/"), noAuth)
	must("filestore")
	e.LustreClient, err = lustre.NewClient(ctx, option.WithEndpoint(e.URL+"/lustre/"), noAuth)
	must("lustre")
	e.LustreClient.PollInitial = 1
	t.Cleanup(func() {
		_ = e.Networks.Close()
		_ = e.Subnetworks.Close()
		_ = e.GlobalAddresses.Close()
		_ = e.FilestoreClient.Close()
	})
	return e
}

// Network creates a custom-mode VPC network. Operations complete before the insert answers (no latency), so
// no wait is needed.
func (e *Env) Network(name string) {
	e.t.Helper()
	_, err := e.Networks.Insert(e.Ctx, &computepb.InsertNetworkRequest{Project: Project, NetworkResource: &computepb.Network{
		Name: proto.String(name), AutoCreateSubnetworks: proto.Bool(false),
	}})
	if err != nil {
		e.t.Fatalf("creating network %s: %v", name, err)
	}
}

// Range reserves an allocated range (a VPC_PEERING global address) of prefixLength bits on network, at
// address when given.
func (e *Env) Range(network, name string, prefixLength int32, address string) {
	e.t.Helper()
	a := &computepb.Address{
		Name: proto.String(name), AddressType: proto.String("INTERNAL"), Purpose: proto.String("VPC_PEERING"),
		PrefixLength: proto.Int32(prefixLength), Network: proto.String("projects/" + Project + "/global/networks/" + network),
	}
	if address != "" {
		a.Address = proto.String(address)
	}
	if _, err := e.GlobalAddresses.Insert(e.Ctx, &computepb.InsertGlobalAddressRequest{Project: Project, AddressResource: a}); err != nil {
		e.t.Fatalf("reserving range %s: %v", name, err)
	}
}

// ConsumerNetwork is network in the project-number form Service Networking uses.
func (e *Env) ConsumerNetwork(network string) string {
	return "projects/" + core.ProjectNumber(Project) + "/global/networks/" + network
}

// Connect creates the servicenetworking.googleapis.com connection of network with ranges and returns the
// finished operation.
func (e *Env) Connect(network string, ranges ...string) *sn.Operation {
	e.t.Helper()
	op, err := e.ServiceNet.Services.Connections.Create("services/"+servicenetworking.DefaultService, &sn.Connection{
		Network: e.ConsumerNetwork(network), ReservedPeeringRanges: ranges,
	}).Context(e.Ctx).Do()
	if err != nil {
		e.t.Fatalf("connecting %s: %v", network, err)
	}
	return e.SNOp(op)
}

// SNOp returns the current state of a Service Networking operation (done at once without latency).
func (e *Env) SNOp(op *sn.Operation) *sn.Operation {
	e.t.Helper()
	got, err := e.ServiceNet.Operations.Get(op.Name).Context(e.Ctx).Do()
	if err != nil {
		e.t.Fatalf("reading operation %s: %v", op.Name, err)
	}
	if !got.Done {
		e.t.Fatalf("operation %s is not done", op.Name)
	}
	return got
}

// PSA sets up private service access on a new network: the network, a /20 range at 10.20.0.0 named
// network+"-psa", and the connection.
func (e *Env) PSA(network string) {
	e.t.Helper()
	e.Network(network)
	e.Range(network, network+"-psa", 20, "10.20.0.0")
	if op := e.Connect(network, network+"-psa"); op.Error != nil {
		e.t.Fatalf("connecting %s: %s", network, op.Error.Message)
	}
}
