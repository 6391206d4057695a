package lustre_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest/psatest"
	emulustre "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/lustre"
	sn "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/servicenetworking"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

const zone, parent = psatest.Zone, psatest.Parent

var apiErr = psatest.APIError

func name(id string) string { return parent + "/instances/" + id }

func valid(network string) *lustre.Instance {
	return &lustre.Instance{
		Filesystem: "lfs", CapacityGib: 18000, PerUnitStorageThroughput: 500,
		Network: "projects/" + psatest.Project + "/global/networks/" + network, Labels: map[string]string{"role": "data"},
	}
}

func with(inst *lustre.Instance, fn func(*lustre.Instance)) *lustre.Instance {
	c := *inst
	fn(&c)
	return &c
}

func create(t *testing.T, e *psatest.Env, id string, inst *lustre.Instance) (*lustre.Instance, error) {
	t.Helper()
	op, err := e.LustreClient.CreateInstance(e.Ctx, parent, id, inst)
	if err != nil {
		return nil, err
	}
	return e.LustreClient.WaitOperation(e.Ctx, op)
}

func TestLustreLifecycle(t *testing.T) {
	e := psatest.Start(t)
	e.PSA("vpc")

	op, err := e.LustreClient.CreateInstance(e.Ctx, parent, "data", valid("vpc"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(op.Name, parent+"/operations/operation-") || lustre.AnyTypeURL(op.Metadata) != lustre.OperationMetadataTypeURL {
		t.Fatalf("create answer = %+v", op)
	}
	inst, err := e.LustreClient.WaitOperation(e.Ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	if inst.Name != name("data") || inst.State != lustre.StateActive || inst.MountPoint != "10.20.0.2@tcp:/lfs" ||
		inst.CapacityGib != 18000 || inst.PerUnitStorageThroughput != 500 || inst.UID == "" || inst.CreateTime == "" || inst.Labels["role"] != "data" {
		t.Fatalf("created = %+v", inst)
	}

	// int64 fields travel as strings.
	res, err := http.Get(e.URL + "/lustre/v1/" + name("data"))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(raw), `"capacityGib":"18000"`) || !strings.Contains(string(raw), `"perUnitStorageThroughput":"500"`) {
		t.Fatalf("wire form: %s", raw)
	}

	// A second instance takes the next /24 of the range.
	other, err := create(t, e, "scratch", with(valid("vpc"), func(i *lustre.Instance) { i.Filesystem = "scratch" }))
	if err != nil || other.MountPoint != "10.20.1.2@tcp:/scratch" {
		t.Fatalf("second = %+v, %v", other, err)
	}
	all, err := e.LustreClient.ListInstances(e.Ctx, "projects/"+psatest.Project+"/locations/-")
	if err != nil || len(all) != 2 || all[0].Name != name("data") || all[1].Name != name("scratch") {
		t.Fatalf("list = %+v, %v", all, err)
	}

	// Backing directory and mount resolution.
	dir := filepath.Join(e.DataDir, "lustre", psatest.Project, zone, "data")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("backing directory: %v", err)
	}
	for src, want := range map[string]string{
		"10.20.0.2@tcp:/lfs":          dir,
		"10.20.0.2@tcp0:/lfs":         dir,
		"10.20.0.2@tcp:/lfs/ckpt/run": filepath.Join(dir, "ckpt", "run"),
	} {
		if got, ok := e.Lustre.ResolveMount(src); !ok || got != want {
			t.Errorf("ResolveMount(%s) = %q %v, want %s", src, got, ok, want)
		}
	}
	for _, src := range []string{"10.20.0.2@tcp:/other", "10.20.0.9@tcp:/lfs", "10.20.0.2:/lfs"} {
		if got, ok := e.Lustre.ResolveMount(src); ok {
			t.Errorf("ResolveMount(%s) = %s", src, got)
		}
	}

	patch := func(inst *lustre.Instance, mask ...string) (*lustre.Instance, error) {
		op, err := e.LustreClient.PatchInstance(e.Ctx, inst, mask)
		if err != nil {
			return nil, err
		}
		return e.LustreClient.WaitOperation(e.Ctx, op)
	}
	grown, err := patch(with(inst, func(i *lustre.Instance) { i.CapacityGib = 36000; i.Description = "more" }), "capacityGib", "description")
	if err != nil || grown.CapacityGib != 36000 || grown.Description != "more" {
		t.Fatalf("grow = %+v, %v", grown, err)
	}
	refused := []struct {
		inst  *lustre.Instance
		mask  string
		field string
	}{
		{with(grown, func(i *lustre.Instance) { i.CapacityGib = 18000 }), "capacityGib", "cannot shrink"},
		{with(grown, func(i *lustre.Instance) { i.CapacityGib = 40000 }), "capacityGib", "capacity_gib"},
		{with(grown, func(i *lustre.Instance) { i.PerUnitStorageThroughput = 1000 }), "perUnitStorageThroughput", "immutable"},
		{with(grown, func(i *lustre.Instance) { i.Filesystem = "other" }), "filesystem", "immutable"},
		{with(grown, func(i *lustre.Instance) { i.Network = "x" }), "network", "immutable"},
		{with(grown, func(i *lustre.Instance) { i.State = "STOPPED" }), "state", "cannot be updated"},
	}
	for _, c := range refused {
		_, err := patch(c.inst, c.mask)
		psatest.WantRefused(t, err, "patch of "+c.mask, "INVALID_ARGUMENT", c.field)
	}

	// No deletion protection on the API: delete works at once.
	if err := os.WriteFile(filepath.Join(dir, "ckpt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	dop, err := e.LustreClient.DeleteInstance(e.Ctx, name("data"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := e.LustreClient.WaitOperation(e.Ctx, dop); err != nil || got != nil {
		t.Fatalf("delete = %+v, %v", got, err)
	}
	_, err = e.LustreClient.GetInstance(e.Ctx, name("data"))
	if he := apiErr(t, err); he.Code != 404 || he.Status != "NOT_FOUND" || he.Message != "Resource '"+name("data")+"' was not found" {
		t.Fatalf("get after delete = %+v", he)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("backing directory survived: %v", err)
	}
	if _, ok := sn.AllocationOf(e.Server.Store, sn.NetworkRef{Project: psatest.Project, Name: "vpc"}, name("data")); ok {
		t.Fatal("the deleted instance still holds its block")
	}
}

func TestLustreCreateValidation(t *testing.T) {
	e := psatest.Start(t)
	e.PSA("vpc")
	e.Network("bare")
	cases := []struct {
		name, id      string
		inst          *lustre.Instance
		status, field string
	}{
		{"capacity off the tier's step", "a", with(valid("vpc"), func(i *lustre.Instance) { i.CapacityGib = 20000 }), "INVALID_ARGUMENT", "capacity_gib"},
		{"capacity below the tier's minimum", "a", with(valid("vpc"), func(i *lustre.Instance) { i.CapacityGib = 9000 }), "INVALID_ARGUMENT", "capacity_gib"},
		{"no capacity", "a", with(valid("vpc"), func(i *lustre.Instance) { i.CapacityGib = 0 }), "INVALID_ARGUMENT", "capacity_gib"},
		{"unknown throughput", "a", with(valid("vpc"), func(i *lustre.Instance) { i.PerUnitStorageThroughput = 300 }), "INVALID_ARGUMENT", "per_unit_storage_throughput"},
		{"filesystem too long", "a", with(valid("vpc"), func(i *lustre.Instance) { i.Filesystem = "ninechars" }), "INVALID_ARGUMENT", "filesystem"},
		{"filesystem with a dash", "a", with(valid("vpc"), func(i *lustre.Instance) { i.Filesystem = "l-fs" }), "INVALID_ARGUMENT", "filesystem"},
		{"no filesystem", "a", with(valid("vpc"), func(i *lustre.Instance) { i.Filesystem = "" }), "INVALID_ARGUMENT", "filesystem"},
		{"bad instance id", "-a", valid("vpc"), "INVALID_ARGUMENT", "instance_id"},
		{"no network", "a", with(valid("vpc"), func(i *lustre.Instance) { i.Network = "" }), "INVALID_ARGUMENT", "network"},
		{"missing network", "a", valid("nope"), "INVALID_ARGUMENT", "network"},
		{"no private service access", "a", valid("bare"), "FAILED_PRECONDITION", "Private service access is required"},
		{"bad label", "a", with(valid("vpc"), func(i *lustre.Instance) { i.Labels = map[string]string{"x": "UP"} }), "INVALID_ARGUMENT", "labels"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.LustreClient.CreateInstance(e.Ctx, parent, c.id, c.inst)
			psatest.WantRefused(t, err, "create", c.status, c.field)
		})
	}
	// A region is not a Lustre location.
	_, err := e.LustreClient.CreateInstance(e.Ctx, "projects/"+psatest.Project+"/locations/us-central1", "a", valid("vpc"))
	if he := apiErr(t, err); he.Code != 400 || !strings.Contains(he.Message, "zone") {
		t.Fatalf("regional location = %+v", he)
	}
	if recs := e.Server.Store.List(emulustre.KindInstances, ""); len(recs) != 0 {
		t.Fatalf("refused creates left %d instances", len(recs))
	}
	if _, err := create(t, e, "dup", valid("vpc")); err != nil {
		t.Fatal(err)
	}
	_, err = e.LustreClient.CreateInstance(e.Ctx, parent, "dup", valid("vpc"))
	if he := apiErr(t, err); he.Code != 409 || he.Status != "ALREADY_EXISTS" {
		t.Fatalf("duplicate = %+v", he)
	}
}

func TestLustreFailedOperationsLeaveNothing(t *testing.T) {
	e := psatest.Start(t)
	e.PSA("vpc")
	_ = e.Server.Faults.Apply(core.FaultSpec{FailOperations: []core.FailOperations{{Method: "lustre.projects.locations.instances.create", Count: 1}}})
	_, err := create(t, e, "doomed", valid("vpc"))
	var oe *lustre.OperationError
	if !errors.As(err, &oe) {
		t.Fatalf("failed operation: %v", err)
	}
	_ = e.Server.Faults.Apply(core.FaultSpec{Stockouts: []core.Stockout{{Zone: "us-central1-*", MachineType: "lustre/500"}}})
	_, err = create(t, e, "stocked", valid("vpc"))
	if !errors.As(err, &oe) || oe.Status.Code != 8 || !strings.Contains(oe.Status.Message, "does not have enough resources available") {
		t.Fatalf("stockout: %v", err)
	}
	// Another throughput tier is not stocked out.
	ok, err := create(t, e, "ok", with(valid("vpc"), func(i *lustre.Instance) { i.PerUnitStorageThroughput = 1000; i.CapacityGib = 9000 }))
	if err != nil || ok.MountPoint != "10.20.0.2@tcp:/lfs" {
		t.Fatalf("after failures: %+v, %v (the failed creates must give their blocks back)", ok, err)
	}
	for _, id := range []string{"doomed", "stocked"} {
		if _, err := e.LustreClient.GetInstance(e.Ctx, name(id)); apiErr(t, err).Code != 404 {
			t.Errorf("%s survives its failed creation", id)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(e.DataDir, "lustre", psatest.Project, zone))
	if len(entries) != 1 || entries[0].Name() != "ok" {
		t.Errorf("backing directories: %v", entries)
	}
}

// A retried create with the same requestId answers the first operation instead of failing with 409.
func TestLustreRequestIDIdempotency(t *testing.T) {
	e := psatest.Start(t)
	e.PSA("vpc")
	body, _ := json.Marshal(valid("vpc"))
	post := func() (int, lustre.Operation) {
		q := url.Values{"instanceId": {"data"}, "requestId": {"6f1c1e1a-8b57-4c1f-9d7e-0c6b0d5a1e11"}}
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, e.URL+"/lustre/v1/"+parent+"/instances?"+q.Encode(), strings.NewReader(string(body)))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var op lustre.Operation
		_ = json.NewDecoder(res.Body).Decode(&op)
		return res.StatusCode, op
	}
	c1, op1 := post()
	c2, op2 := post()
	if c1 != 200 || c2 != 200 || op1.Name == "" || op1.Name != op2.Name {
		t.Fatalf("retries: %d %s / %d %s", c1, op1.Name, c2, op2.Name)
	}
}

func TestLustreCreatingState(t *testing.T) {
	e := psatest.Start(t)
	e.PSA("vpc")
	_ = e.Server.Faults.Apply(core.FaultSpec{Latency: map[string]core.Duration{"lustre.*": core.Duration(time.Hour)}})
	op, err := e.LustreClient.CreateInstance(e.Ctx, parent, "slow", valid("vpc"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.LustreClient.GetInstance(e.Ctx, name("slow"))
	if err != nil || got.State != lustre.StateCreating || got.MountPoint != "" {
		t.Fatalf("while creating: %+v, %v", got, err)
	}
	// Deleting while creating wins: the create ends aborted, nothing is left.
	dop, err := e.LustreClient.DeleteInstance(e.Ctx, name("slow"))
	if err != nil {
		t.Fatal(err)
	}
	e.Server.Ops.Complete(op.Name, nil)
	e.Server.Ops.Complete(dop.Name, nil)
	if _, err := e.LustreClient.WaitOperation(e.Ctx, op); err == nil {
		t.Fatal("the create of a deleted instance succeeded")
	}
	if _, err := e.LustreClient.WaitOperation(e.Ctx, dop); err != nil {
		t.Fatal(err)
	}
	if _, err := e.LustreClient.GetInstance(e.Ctx, name("slow")); apiErr(t, err).Code != 404 {
		t.Fatal("instance left behind")
	}
	if n := len(sn.OwnerAllocations(e.Server.Store, name("slow"))); n != 0 {
		t.Fatalf("%d blocks left behind", n)
	}
}
