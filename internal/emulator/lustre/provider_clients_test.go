package lustre_test

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"cloud.google.com/go/filestore/apiv1/filestorepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest/psatest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

// The provider's own clients (endpoints, waiting and error classification of internal/gcp) against the
// storage APIs: the path a Terraform apply takes.
func TestProviderClients(t *testing.T) {
	e := psatest.Start(t)
	e.PSA("vpc")
	host := strings.TrimPrefix(e.URL, "http://")
	c, err := gcp.NewClients(e.Ctx, gcp.Config{Project: psatest.Project, Region: "us-central1", Zone: zone, EmulatorHost: host})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// The provider finds the connection by the project number Compute reports.
	p, err := c.Projects.Get(e.Ctx, &computepb.GetProjectRequest{Project: psatest.Project})
	if err != nil {
		t.Fatal(err)
	}
	network := "projects/" + strconv.FormatUint(p.GetId(), 10) + "/global/networks/vpc"
	conns, err := c.ServiceNetworking.Services.Connections.List("services/servicenetworking.googleapis.com").Network(network).Do()
	if err != nil || len(conns.Connections) != 1 || conns.Connections[0].Network != network {
		t.Fatalf("connections of %s = %+v, %v", network, conns, err)
	}

	op, err := c.Filestore.CreateInstance(e.Ctx, &filestorepb.CreateInstanceRequest{Parent: parent, InstanceId: "home", Instance: &filestorepb.Instance{
		Tier:       filestorepb.Instance_BASIC_SSD,
		FileShares: []*filestorepb.FileShareConfig{{Name: "home", CapacityGb: 2560}},
		Networks:   []*filestorepb.NetworkConfig{{Network: "vpc", ConnectMode: filestorepb.NetworkConfig_PRIVATE_SERVICE_ACCESS}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := c.WaitFilestoreInstance(e.Ctx, op.Name())
	if err != nil || fs.GetState() != filestorepb.Instance_READY || fs.GetNetworks()[0].GetIpAddresses()[0] != "10.20.0.2" {
		t.Fatalf("filestore = %v, %v", fs, err)
	}
	_, err = c.Filestore.GetInstance(e.Ctx, &filestorepb.GetInstanceRequest{Name: parent + "/instances/nope"})
	if !gcp.IsNotFound(gcp.Classify(err)) {
		t.Fatalf("missing Filestore instance: %v", err)
	}

	lop, err := c.Lustre.CreateInstance(e.Ctx, parent, "data", valid("vpc"))
	if err != nil {
		t.Fatal(err)
	}
	li, err := c.WaitLustreOp(e.Ctx, lop)
	if err != nil || li.State != lustre.StateActive || li.MountPoint != "10.20.1.2@tcp:/lfs" {
		t.Fatalf("lustre = %+v, %v (the Filestore /29 sits in the first /24)", li, err)
	}
	_, err = c.Lustre.CreateInstance(e.Ctx, parent, "other", with(valid("vpc"), func(i *lustre.Instance) {
		i.Network = "projects/" + psatest.Project + "/global/networks/nowhere"
	}))
	if !gcp.IsInvalidArgument(gcp.Classify(err)) {
		t.Fatalf("missing network: %v", err)
	}

	e.Network("bare")
	_, err = c.Lustre.CreateInstance(e.Ctx, parent, "other", valid("bare"))
	if !gcp.IsPreconditionFailed(gcp.Classify(err)) || !strings.Contains(err.Error(), "Private service access") {
		t.Fatalf("no private service access: %v", err)
	}
}

// The provider's Lustre client (internal/gcp/lustre) and the emulator's own wire types (wire.go) agree: every
// field the client sends comes back as sent, int64 fields survive as numbers, and an update and a delete
// through the client take effect. A field misnamed on either side fails here.
func TestLustreClientRoundTrip(t *testing.T) {
	e := psatest.Start(t)
	e.PSA("vpc")
	sent := with(valid("vpc"), func(i *lustre.Instance) {
		i.Description = "checkpoints"
		i.GkeSupportEnabled = true
	})
	got, err := create(t, e, "rt", sent)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != parent+"/instances/rt" || got.Filesystem != sent.Filesystem || got.CapacityGib != sent.CapacityGib ||
		got.PerUnitStorageThroughput != sent.PerUnitStorageThroughput || got.Network != sent.Network ||
		got.Description != sent.Description || got.Labels["role"] != "data" || !got.GkeSupportEnabled ||
		got.State != lustre.StateActive || got.MountPoint == "" || got.CreateTime == "" || got.UID == "" {
		t.Fatalf("created instance = %+v", got)
	}
	read, err := e.LustreClient.GetInstance(e.Ctx, got.Name)
	if err != nil || !reflect.DeepEqual(read, got) {
		t.Fatalf("get = %+v, %v; want %+v", read, err, got)
	}
	grown := with(read, func(i *lustre.Instance) { i.CapacityGib = 36000 })
	op, err := e.LustreClient.PatchInstance(e.Ctx, grown, []string{"capacity_gib"})
	if err != nil {
		t.Fatal(err)
	}
	if patched, err := e.LustreClient.WaitOperation(e.Ctx, op); err != nil || patched.CapacityGib != 36000 {
		t.Fatalf("patch = %+v, %v", patched, err)
	}
	list, err := e.LustreClient.ListInstances(e.Ctx, parent)
	if err != nil || len(list) != 1 || list[0].CapacityGib != 36000 {
		t.Fatalf("list = %+v, %v", list, err)
	}
	op, err = e.LustreClient.DeleteInstance(e.Ctx, got.Name)
	if err == nil {
		_, err = e.LustreClient.WaitOperation(e.Ctx, op)
	}
	if err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := e.LustreClient.GetInstance(e.Ctx, got.Name); !gcp.IsNotFound(gcp.Classify(err)) {
		t.Fatalf("after delete: %v", err)
	}
}
