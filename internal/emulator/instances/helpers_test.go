package instances_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/option"
	"google.golang.org/protobuf/proto"

	computeemu "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

const (
	project = "test-project"
	zone    = "us-central1-a"
	region  = "us-central1"
)

// env is an emulator with the compute and instances packages, a custom VPC "net" with subnet "sub"
// (10.0.0.0/20) in us-central1, and the official REST clients pointed at it.
type env struct {
	t         *testing.T
	srv       *core.Server
	svc       *instances.Service
	url       string
	instances *compute.InstancesClient
	region    *compute.RegionInstancesClient
	templates *compute.InstanceTemplatesClient
	policies  *compute.ResourcePoliciesClient
	resv      *compute.ReservationsClient
	globalOps *compute.GlobalOperationsClient
	ctx       context.Context
}

func newEnv(t *testing.T) *env {
	t.Helper()
	srv := core.NewServer(core.Options{Seed: 7})
	computeemu.Register(srv)
	svc := instances.Register(srv)
	hs := httptest.NewServer(srv.Router)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(func() {
		cancel()
		hs.Close()
		srv.Close()
	})
	opts := []option.ClientOption{option.WithEndpoint(hs.URL + "/"), option.WithoutAuthentication()}
	e := &env{t: t, srv: srv, svc: svc, url: hs.URL, ctx: ctx}
	var err error
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	e.instances, err = compute.NewInstancesRESTClient(ctx, opts...)
	must(err)
	e.region, err = compute.NewRegionInstancesRESTClient(ctx, opts...)
	must(err)
	e.templates, err = compute.NewInstanceTemplatesRESTClient(ctx, opts...)
	must(err)
	e.policies, err = compute.NewResourcePoliciesRESTClient(ctx, opts...)
	must(err)
	e.resv, err = compute.NewReservationsRESTClient(ctx, opts...)
	must(err)
	e.globalOps, err = compute.NewGlobalOperationsRESTClient(ctx, opts...)
	must(err)
	nets, err := compute.NewNetworksRESTClient(ctx, opts...)
	must(err)
	subs, err := compute.NewSubnetworksRESTClient(ctx, opts...)
	must(err)
	op, err := nets.Insert(ctx, &computepb.InsertNetworkRequest{Project: project, NetworkResource: &computepb.Network{
		Name: proto.String("net"), AutoCreateSubnetworks: proto.Bool(false), Mtu: proto.Int32(8896)}})
	must(err)
	must(op.Wait(ctx))
	op, err = subs.Insert(ctx, &computepb.InsertSubnetworkRequest{Project: project, Region: region, SubnetworkResource: &computepb.Subnetwork{
		Name: proto.String("sub"), Network: proto.String("global/networks/net"), IpCidrRange: proto.String("10.0.0.0/20")}})
	must(err)
	must(op.Wait(ctx))
	return e
}

// vm is a minimal valid instance of machineType in the test subnet.
func vm(name, machineType string) *computepb.Instance {
	return &computepb.Instance{
		Name:        proto.String(name),
		MachineType: proto.String("zones/" + zone + "/machineTypes/" + machineType),
		Disks: []*computepb.AttachedDisk{{
			Boot: proto.Bool(true), AutoDelete: proto.Bool(true),
			InitializeParams: &computepb.AttachedDiskInitializeParams{SourceImage: proto.String("projects/debian-cloud/global/images/family/debian-12"), DiskSizeGb: proto.Int64(50)},
		}},
		NetworkInterfaces: []*computepb.NetworkInterface{{Subnetwork: proto.String("regions/" + region + "/subnetworks/sub")}},
	}
}

// gpuVM is an a3-highgpu-8g that may run (TERMINATE on host maintenance).
func gpuVM(name string) *computepb.Instance {
	v := vm(name, "a3-highgpu-8g")
	v.Scheduling = &computepb.Scheduling{OnHostMaintenance: proto.String("TERMINATE")}
	return v
}

// insert creates an instance and waits for its operation; it returns the operation's error.
func (e *env) insert(inst *computepb.Instance) error {
	e.t.Helper()
	op, err := e.instances.Insert(e.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: inst})
	if err != nil {
		return err
	}
	return op.Wait(e.ctx)
}

func (e *env) mustInsert(inst *computepb.Instance) {
	e.t.Helper()
	if err := e.insert(inst); err != nil {
		e.t.Fatalf("insert %s: %v", inst.GetName(), err)
	}
}

func (e *env) get(name string) (*computepb.Instance, error) {
	return e.instances.Get(e.ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: name})
}

func (e *env) mustGet(name string) *computepb.Instance {
	e.t.Helper()
	inst, err := e.get(name)
	if err != nil {
		e.t.Fatalf("get %s: %v", name, err)
	}
	return inst
}

// httpCode is the HTTP status of a client error (0 when it is not an API error).
func httpCode(err error) int {
	var ae *apierror.APIError
	if errors.As(err, &ae) {
		return ae.HTTPCode()
	}
	return 0
}

func wantHTTPError(t *testing.T, err error, code int, fragment string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want HTTP %d error containing %q, got success", code, fragment)
	}
	if got := httpCode(err); got != code || !strings.Contains(err.Error(), fragment) {
		t.Fatalf("want HTTP %d containing %q, got %d: %v", code, fragment, got, err)
	}
}

// seedReservation stores a reservation as the admin API does.
func (e *env) seedReservation(name, machineType string, count int64, specific bool) {
	e.t.Helper()
	key := "projects/" + project + "/zones/" + zone + "/reservations/" + name
	err := e.srv.Store.Put(instances.KindReservations, key, &computepb.Reservation{
		Name:                        proto.String(name),
		SpecificReservationRequired: proto.Bool(specific),
		SpecificReservation: &computepb.AllocationSpecificSKUReservation{
			Count:              proto.Int64(count),
			InstanceProperties: &computepb.AllocationSpecificSKUAllocationReservedInstanceProperties{MachineType: proto.String(machineType)},
		},
	})
	if err != nil {
		e.t.Fatal(err)
	}
}
