package filestore_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	"google.golang.org/api/iterator"
	"google.golang.org/genproto/googleapis/cloud/common"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest/psatest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/filestore"
	sn "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/servicenetworking"
)

func TestFilestoreLifecycle(t *testing.T) {
	e := psatest.Start(t)
	e.PSA("vpc")

	op, err := e.FilestoreClient.CreateInstance(e.Ctx, &filestorepb.CreateInstanceRequest{Parent: parent, InstanceId: "home", Instance: zonal("vpc")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(op.Name(), parent+"/operations/operation-") {
		t.Errorf("operation name = %s", op.Name())
	}
	inst, err := op.Wait(e.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	nc := inst.GetNetworks()[0]
	if inst.GetName() != instName("home") || inst.GetState() != filestorepb.Instance_READY || inst.GetProtocol() != filestorepb.Instance_NFS_V3 ||
		inst.GetTier() != filestorepb.Instance_ZONAL || inst.GetEtag() == "" || inst.GetCreateTime() == nil || inst.GetLabels()["role"] != "home" {
		t.Fatalf("created instance = %v", inst)
	}
	// A ZONAL instance takes a /26 from the connected /20 and serves on its first host address.
	if !slices.Equal(nc.GetIpAddresses(), []string{"10.20.0.2"}) || nc.GetReservedIpRange() != "10.20.0.0/26" ||
		!slices.Equal(nc.GetModes(), []filestorepb.NetworkConfig_AddressMode{filestorepb.NetworkConfig_MODE_IPV4}) {
		t.Fatalf("network config = %v", nc)
	}
	// The generated Wait polled the unprefixed /v1 path, which is counted as operations.get.
	if e.Server.Calls.Count("file.projects.locations.operations.get") == 0 {
		t.Error("operations.get was never called")
	}

	// The operation carries common.OperationMetadata and is listed.
	lro, err := e.FilestoreClient.GetOperation(e.Ctx, &longrunningpb.GetOperationRequest{Name: op.Name()})
	if err != nil {
		t.Fatal(err)
	}
	var md common.OperationMetadata
	if err := lro.GetMetadata().UnmarshalTo(&md); err != nil || md.GetVerb() != "create" || md.GetTarget() != instName("home") || md.GetEndTime() == nil || md.GetApiVersion() != "v1" {
		t.Fatalf("metadata = %v (%v)", &md, err)
	}

	got, err := e.FilestoreClient.GetInstance(e.Ctx, &filestorepb.GetInstanceRequest{Name: instName("home")})
	if err != nil || got.GetState() != filestorepb.Instance_READY || got.GetNetworks()[0].GetIpAddresses()[0] != "10.20.0.2" {
		t.Fatalf("get = %v, %v", got, err)
	}

	// A second instance gets the next free block.
	basic := edit(zonal("vpc"), func(i *filestorepb.Instance) { i.Tier = filestorepb.Instance_BASIC_HDD })
	second := mustCreate(t, e, "scratch", basic)
	if ip := second.GetNetworks()[0].GetIpAddresses()[0]; ip != "10.20.0.66" {
		t.Fatalf("second instance IP = %s, want 10.20.0.66 (the /29 after the first /26)", ip)
	}

	it := e.FilestoreClient.ListInstances(e.Ctx, &filestorepb.ListInstancesRequest{Parent: "projects/" + psatest.Project + "/locations/-"})
	var names []string
	for {
		i, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, i.GetName())
	}
	if !slices.Equal(names, []string{instName("home"), instName("scratch")}) {
		t.Fatalf("list = %v", names)
	}
	if recs := e.Server.Store.List(filestore.KindInstances, ""); len(recs) != 2 {
		t.Fatalf("store holds %d instances", len(recs))
	}

	// The share is backed by a directory the runtime's mount helper finds from the NFS source.
	dir := filepath.Join(e.DataDir, "filestore", psatest.Project, zone, "home", "home")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("backing directory: %v", err)
	}
	if d, ok := e.Filestore.ResolveMount("10.20.0.2:/home"); !ok || d != dir {
		t.Fatalf("ResolveMount = %q %v, want %s", d, ok, dir)
	}
	if d, ok := e.Filestore.ResolveMount("10.20.0.2:/home/alice"); !ok || d != filepath.Join(dir, "alice") {
		t.Fatalf("ResolveMount of a subdirectory = %q %v", d, ok)
	}
	for _, src := range []string{"10.20.0.2:/other", "10.20.0.3:/home", "10.20.0.2:home", "10.20.0.2:/home/../../x"} {
		if d, ok := e.Filestore.ResolveMount(src); ok {
			t.Errorf("ResolveMount(%s) = %s", src, d)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "data"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}

	update := func(inst *filestorepb.Instance, paths ...string) (*filestorepb.Instance, error) {
		op, err := e.FilestoreClient.UpdateInstance(e.Ctx, &filestorepb.UpdateInstanceRequest{Instance: inst, UpdateMask: &fieldmaskpb.FieldMask{Paths: paths}})
		if err != nil {
			return nil, err
		}
		return op.Wait(e.Ctx)
	}
	// Grow in the ZONAL step of 256 GB.
	grown, err := update(edit(got, func(i *filestorepb.Instance) { i.FileShares[0].CapacityGb = 1280 }), "file_shares")
	if err != nil || grown.GetFileShares()[0].GetCapacityGb() != 1280 || grown.GetEtag() == got.GetEtag() {
		t.Fatalf("grow = %v, %v", grown, err)
	}
	// Invalid step, share rename and protocol changes are refused synchronously, naming the field.
	refusals := []struct {
		inst  *filestorepb.Instance
		path  string
		field string
	}{
		{edit(grown, func(i *filestorepb.Instance) { i.FileShares[0].CapacityGb = 1300 }), "file_shares", "capacity_gb"},
		{edit(grown, func(i *filestorepb.Instance) { i.FileShares[0].Name = "other" }), "file_shares", "file_shares[0].name"},
		{edit(grown, func(i *filestorepb.Instance) { i.Protocol = filestorepb.Instance_NFS_V4_1 }), "protocol", "'protocol' cannot be updated"},
		{edit(grown, func(i *filestorepb.Instance) { i.Tier = filestorepb.Instance_REGIONAL }), "tier", "'tier' cannot be updated"},
	}
	for _, c := range refusals {
		_, err := update(c.inst, c.path)
		psatest.WantRefused(t, err, "update of "+c.path, "INVALID_ARGUMENT", c.field)
	}

	// Deletion protection blocks delete until it is lifted.
	if _, err := update(edit(grown, func(i *filestorepb.Instance) {
		i.DeletionProtectionEnabled, i.DeletionProtectionReason = true, "holds /home"
	}), "deletion_protection_enabled", "deletion_protection_reason"); err != nil {
		t.Fatal(err)
	}
	_, err = e.FilestoreClient.DeleteInstance(e.Ctx, &filestorepb.DeleteInstanceRequest{Name: instName("home")})
	if he := apiErr(t, err); he.Code != 400 || he.Status != "FAILED_PRECONDITION" || !strings.Contains(he.Message, "deletion protection") {
		t.Fatalf("protected delete = %+v", he)
	}
	if _, err := update(edit(grown, func(i *filestorepb.Instance) { i.DeletionProtectionEnabled = false }), "deletion_protection_enabled"); err != nil {
		t.Fatal(err)
	}
	dop, err := e.FilestoreClient.DeleteInstance(e.Ctx, &filestorepb.DeleteInstanceRequest{Name: instName("home"), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := dop.Wait(e.Ctx); err != nil {
		t.Fatal(err)
	}
	_, err = e.FilestoreClient.GetInstance(e.Ctx, &filestorepb.GetInstanceRequest{Name: instName("home")})
	if he := apiErr(t, err); he.Code != 404 || he.Status != "NOT_FOUND" || he.Message != "Resource '"+instName("home")+"' was not found" {
		t.Fatalf("get after delete = %+v", he)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("backing directory survived the delete: %v", err)
	}
	if _, ok := e.Filestore.ResolveMount("10.20.0.2:/home"); ok {
		t.Fatal("a deleted instance still resolves")
	}
	// Its block went back to the range: a new ZONAL instance takes it again.
	again := mustCreate(t, e, "home2", zonal("vpc"))
	if ip := again.GetNetworks()[0].GetIpAddresses()[0]; ip != "10.20.0.2" {
		t.Fatalf("IP after release = %s", ip)
	}

	// Listing operations shows Filestore's own.
	oit := e.FilestoreClient.ListOperations(e.Ctx, &longrunningpb.ListOperationsRequest{Name: parent})
	n := 0
	for {
		_, err := oit.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n < 6 {
		t.Fatalf("listed %d operations", n)
	}
}

func TestFilestoreCreateValidation(t *testing.T) {
	e := psatest.Start(t)
	e.PSA("vpc")
	e.Network("bare") // no private service access

	cases := []struct {
		name, id, location string
		inst               *filestorepb.Instance
		status, field      string
	}{
		{"capacity below minimum", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) { i.FileShares[0].CapacityGb = 100 }), "INVALID_ARGUMENT", "file_shares[0].capacity_gb"},
		{"capacity off step", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) { i.FileShares[0].CapacityGb = 1100 }), "INVALID_ARGUMENT", "file_shares[0].capacity_gb"},
		{"share name uppercase", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) { i.FileShares[0].Name = "Home" }), "INVALID_ARGUMENT", "file_shares[0].name"},
		{"basic share name too long", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) {
			i.Tier = filestorepb.Instance_BASIC_HDD
			i.FileShares[0].Name = "a_very_long_share_name"
		}), "INVALID_ARGUMENT", "file_shares[0].name"},
		{"no tier", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) { i.Tier = 0 }), "INVALID_ARGUMENT", "tier"},
		{"unknown tier number", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) { i.Tier = 42 }), "INVALID_ARGUMENT", "tier"},
		{"regional tier in a zone", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) { i.Tier = filestorepb.Instance_REGIONAL }), "INVALID_ARGUMENT", "location"},
		{"zonal tier in a region", "a", "us-central1", zonal("vpc"), "INVALID_ARGUMENT", "location"},
		{"two shares", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) {
			i.FileShares = append(i.FileShares, &filestorepb.FileShareConfig{Name: "b", CapacityGb: 1024})
		}), "INVALID_ARGUMENT", "file_shares"},
		{"no network", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) { i.Networks = nil }), "INVALID_ARGUMENT", "networks"},
		{"missing network", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) { i.Networks[0].Network = "nope" }), "INVALID_ARGUMENT", "networks[0].network"},
		{"no private service access", "a", zone, zonal("bare"), "FAILED_PRECONDITION", "Private service access"},
		{"range not connected", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) { i.Networks[0].ReservedIpRange = "other" }), "INVALID_ARGUMENT", "networks[0].reserved_ip_range"},
		{"direct peering CIDR of the wrong size", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) {
			i.Tier = filestorepb.Instance_BASIC_HDD
			i.Networks[0].ConnectMode = filestorepb.NetworkConfig_DIRECT_PEERING
			i.Networks[0].ReservedIpRange = "172.16.0.0/24"
		}), "INVALID_ARGUMENT", "reserved_ip_range"},
		{"direct peering CIDR overlapping the PSA range", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) {
			i.Networks[0].ConnectMode = filestorepb.NetworkConfig_DIRECT_PEERING
			i.Networks[0].ReservedIpRange = "10.20.1.0/26"
		}), "INVALID_ARGUMENT", "overlaps"},
		{"NFSv4.1 on a basic tier", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) {
			i.Tier = filestorepb.Instance_BASIC_SSD
			i.FileShares[0].CapacityGb = 2560
			i.Protocol = filestorepb.Instance_NFS_V4_1
		}), "INVALID_ARGUMENT", "protocol"},
		{"description too long", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) { i.Description = strings.Repeat("x", 2049) }), "INVALID_ARGUMENT", "description"},
		{"bad label", "a", zone, edit(zonal("vpc"), func(i *filestorepb.Instance) { i.Labels = map[string]string{"Role": "x"} }), "INVALID_ARGUMENT", "labels"},
		{"bad instance id", "Home", zone, zonal("vpc"), "INVALID_ARGUMENT", "instance_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.FilestoreClient.CreateInstance(e.Ctx, &filestorepb.CreateInstanceRequest{
				Parent: "projects/" + psatest.Project + "/locations/" + c.location, InstanceId: c.id, Instance: c.inst})
			psatest.WantRefused(t, err, "create", c.status, c.field)
		})
	}
	if recs := e.Server.Store.List(filestore.KindInstances, ""); len(recs) != 0 {
		t.Fatalf("refused creates left %d instances", len(recs))
	}

	mustCreate(t, e, "dup", zonal("vpc"))
	_, err := e.FilestoreClient.CreateInstance(e.Ctx, &filestorepb.CreateInstanceRequest{Parent: parent, InstanceId: "dup", Instance: zonal("vpc")})
	if he := apiErr(t, err); he.Code != 409 || he.Status != "ALREADY_EXISTS" {
		t.Fatalf("duplicate = %+v", he)
	}
}

func TestFilestoreBasicOnlyGrows(t *testing.T) {
	e := psatest.Start(t)
	e.PSA("vpc")
	basic := edit(zonal("vpc"), func(i *filestorepb.Instance) {
		i.Tier = filestorepb.Instance_BASIC_HDD
		i.FileShares[0].CapacityGb = 2048
	})
	inst := mustCreate(t, e, "basic", basic)
	if nc := inst.GetNetworks()[0]; nc.GetReservedIpRange() != "10.20.0.0/29" {
		t.Fatalf("a Basic instance takes a /29, got %s", nc.GetReservedIpRange())
	}
	_, err := e.FilestoreClient.UpdateInstance(e.Ctx, &filestorepb.UpdateInstanceRequest{
		Instance:   edit(inst, func(i *filestorepb.Instance) { i.FileShares[0].CapacityGb = 1500 }),
		UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"file_shares"}},
	})
	if he := apiErr(t, err); he.Code != 400 || !strings.Contains(he.Message, "cannot shrink") || !strings.Contains(he.Message, "capacity_gb") {
		t.Fatalf("basic shrink = %+v", he)
	}
	op, err := e.FilestoreClient.UpdateInstance(e.Ctx, &filestorepb.UpdateInstanceRequest{
		Instance:   edit(inst, func(i *filestorepb.Instance) { i.FileShares[0].CapacityGb = 3000; i.Description = "bigger" }),
		UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"file_shares", "description"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := op.Wait(e.Ctx)
	if err != nil || got.GetFileShares()[0].GetCapacityGb() != 3000 || got.GetDescription() != "bigger" {
		t.Fatalf("grow = %v, %v", got, err)
	}
}

func TestFilestoreDirectPeering(t *testing.T) {
	e := psatest.Start(t)
	e.Network("vpc")
	direct := func(cidr string) *filestorepb.Instance {
		return edit(zonal("vpc"), func(i *filestorepb.Instance) {
			i.Tier = filestorepb.Instance_BASIC_HDD
			i.Networks[0].ConnectMode = filestorepb.NetworkConfig_DIRECT_PEERING
			i.Networks[0].ReservedIpRange = cidr
		})
	}
	a := mustCreate(t, e, "a", direct("172.16.5.0/29"))
	if nc := a.GetNetworks()[0]; nc.GetIpAddresses()[0] != "172.16.5.2" || nc.GetReservedIpRange() != "172.16.5.0/29" {
		t.Fatalf("explicit range: %v", nc)
	}
	b := mustCreate(t, e, "b", direct(""))
	if nc := b.GetNetworks()[0]; nc.GetReservedIpRange() != "172.16.0.0/29" || nc.GetIpAddresses()[0] != "172.16.0.2" {
		t.Fatalf("server-picked range: %v", nc)
	}
	_, err := create(t, e, "c", direct("172.16.5.0/29"))
	if he := apiErr(t, err); he.Code != 400 || !strings.Contains(he.Message, "overlaps") {
		t.Fatalf("taken range = %+v", he)
	}
}

func TestFilestoreFailedOperationsLeaveNothing(t *testing.T) {
	e := psatest.Start(t)
	e.PSA("vpc")
	net := sn.NetworkRef{Project: psatest.Project, Name: "vpc"}

	if err := e.Server.Faults.Apply(core.FaultSpec{FailOperations: []core.FailOperations{{Method: "file.projects.locations.instances.create", Count: 1}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := create(t, e, "doomed", zonal("vpc")); err == nil {
		t.Fatal("the failed operation reported success")
	}
	if err := e.Server.Faults.Apply(core.FaultSpec{Stockouts: []core.Stockout{{Zone: zone, MachineType: "filestore/*"}}}); err != nil {
		t.Fatal(err)
	}
	_, err := create(t, e, "stocked", zonal("vpc"))
	if err == nil || !strings.Contains(err.Error(), "does not have enough resources available") {
		t.Fatalf("stockout: %v", err)
	}
	for _, id := range []string{"doomed", "stocked"} {
		if _, err := e.FilestoreClient.GetInstance(e.Ctx, &filestorepb.GetInstanceRequest{Name: instName(id)}); apiErr(t, err).Code != 404 {
			t.Errorf("%s survives its failed creation", id)
		}
		if _, ok := sn.AllocationOf(e.Server.Store, net, instName(id)); ok {
			t.Errorf("%s still holds an IP block", id)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(e.DataDir, "filestore")); len(entries) != 0 {
		t.Errorf("failed creates left backing directories: %v", entries)
	}
	e.Server.Faults.Clear()
	// A zone-wide Compute stockout (no machine type) leaves Filestore alone.
	_ = e.Server.Faults.Apply(core.FaultSpec{Stockouts: []core.Stockout{{Zone: zone}}})
	if got := mustCreate(t, e, "ok", zonal("vpc")); got.GetNetworks()[0].GetIpAddresses()[0] != "10.20.0.2" {
		t.Fatalf("first successful instance IP = %s", got.GetNetworks()[0].GetIpAddresses()[0])
	}
}

func TestFilestoreCreatingStateAndLatency(t *testing.T) {
	e := psatest.Start(t)
	e.PSA("vpc")
	_ = e.Server.Faults.Apply(core.FaultSpec{Latency: map[string]core.Duration{"file.projects.locations.instances.create": core.Duration(time.Hour)}})
	op, err := e.FilestoreClient.CreateInstance(e.Ctx, &filestorepb.CreateInstanceRequest{Parent: parent, InstanceId: "slow", Instance: zonal("vpc")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.FilestoreClient.GetInstance(e.Ctx, &filestorepb.GetInstanceRequest{Name: instName("slow")})
	if err != nil || got.GetState() != filestorepb.Instance_CREATING || len(got.GetNetworks()[0].GetIpAddresses()) != 0 {
		t.Fatalf("while creating: %v, %v", got, err)
	}
	// Not READY yet, so not updatable.
	_, err = e.FilestoreClient.UpdateInstance(e.Ctx, &filestorepb.UpdateInstanceRequest{Instance: got, UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"labels"}}})
	if he := apiErr(t, err); he.Status != "FAILED_PRECONDITION" {
		t.Fatalf("update while creating = %+v", he)
	}
	if !e.Server.Ops.Complete(op.Name(), nil) {
		t.Fatal("the create operation was not pending")
	}
	inst, err := op.Wait(e.Ctx)
	if err != nil || inst.GetState() != filestorepb.Instance_READY {
		t.Fatalf("after completion: %v, %v", inst, err)
	}
}

// Backing directories follow committed state: a data directory set after the fact gets the READY instances'
// shares, and a reset (like a deletion) removes them.
func TestFilestoreBackingFollowsState(t *testing.T) {
	e := psatest.Start(t)
	e.PSA("vpc")
	if err := e.Filestore.SetDataDir(""); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, e, "home", zonal("vpc"))
	if _, ok := e.Filestore.ResolveMount("10.20.0.2:/home"); ok {
		t.Fatal("resolved without a data directory")
	}
	dataDir := t.TempDir()
	if err := e.Filestore.SetDataDir(dataDir); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(dataDir, "filestore", psatest.Project, zone, "home", "home")
	if got, ok := e.Filestore.ResolveMount("10.20.0.2:/home"); !ok || got != dir {
		t.Fatalf("ResolveMount = %q %v", got, ok)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("share directory of an existing instance: %v", err)
	}
	if c, ok := e.Server.Component(filestore.ComponentName).(*filestore.Service); !ok || c != e.Filestore {
		t.Fatal("the service is not provided as a component")
	}
	e.Server.Reset()
	if _, err := os.Stat(filepath.Join(dataDir, "filestore", psatest.Project)); !os.IsNotExist(err) {
		t.Fatalf("reset left backing directories: %v", err)
	}
}
