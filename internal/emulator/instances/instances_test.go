package instances_test

import (
	"net/netip"
	"strings"
	"testing"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

func TestInsertRunsAndAllocatesUniqueAddresses(t *testing.T) {
	e := newEnv(t)
	a := vm("a", "e2-standard-4")
	a.Labels = map[string]string{"role": "login"}
	a.Metadata = &computepb.Metadata{Items: []*computepb.Items{{Key: proto.String("startup-script"), Value: proto.String("echo hi")}}}
	a.NetworkInterfaces[0].AccessConfigs = []*computepb.AccessConfig{{}}
	e.mustInsert(a)
	e.mustInsert(vm("b", "e2-standard-4"))

	got := e.mustGet("a")
	if got.GetStatus() != "RUNNING" {
		t.Fatalf("status = %s, want RUNNING", got.GetStatus())
	}
	if want := core.SelfLink("projects/" + project + "/zones/" + zone + "/machineTypes/e2-standard-4"); got.GetMachineType() != want {
		t.Errorf("machineType = %s, want %s", got.GetMachineType(), want)
	}
	if got.GetMetadata().GetFingerprint() == "" || got.GetLabelFingerprint() == "" || got.GetFingerprint() == "" {
		t.Errorf("fingerprints missing: %+v", got)
	}
	if got.GetDisks()[0].GetSource() != core.SelfLink("projects/"+project+"/zones/"+zone+"/disks/a") {
		t.Errorf("boot disk source = %s", got.GetDisks()[0].GetSource())
	}
	nic := got.GetNetworkInterfaces()[0]
	if len(nic.GetAccessConfigs()) != 1 || nic.GetAccessConfigs()[0].GetNatIP() == "" {
		t.Errorf("access config not filled: %+v", nic.GetAccessConfigs())
	}
	if len(e.mustGet("b").GetNetworkInterfaces()[0].GetAccessConfigs()) != 0 {
		t.Errorf("b got an access config it did not ask for")
	}
	ipA, ipB := nic.GetNetworkIP(), e.mustGet("b").GetNetworkInterfaces()[0].GetNetworkIP()
	cidr := netip.MustParsePrefix("10.0.0.0/20")
	for _, ip := range []string{ipA, ipB} {
		if a, err := netip.ParseAddr(ip); err != nil || !cidr.Contains(a) {
			t.Errorf("address %q not in %s", ip, cidr)
		}
	}
	if ipA == ipB || ipA != "10.0.0.2" {
		t.Errorf("addresses a=%s b=%s: want the first usable (10.0.0.2) and distinct", ipA, ipB)
	}
	if q := e.srv.Quotas.Get(region, "CPUS"); q.Usage != 8 {
		t.Errorf("CPUS usage = %v, want 8", q.Usage)
	}

	// Deleting frees the address (the next VM gets it again) and the quota.
	op, err := e.instances.Delete(e.ctx, &computepb.DeleteInstanceRequest{Project: project, Zone: zone, Instance: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(e.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.get("a"); httpCode(err) != 404 {
		t.Fatalf("get after delete: %v, want 404", err)
	}
	if q := e.srv.Quotas.Get(region, "CPUS"); q.Usage != 4 {
		t.Errorf("CPUS usage after delete = %v, want 4", q.Usage)
	}
	e.mustInsert(vm("c", "e2-standard-4"))
	if ip := e.mustGet("c").GetNetworkInterfaces()[0].GetNetworkIP(); ip != ipA {
		t.Errorf("freed address not reused: got %s, want %s", ip, ipA)
	}
	// A name in use is a synchronous 409.
	_, err = e.instances.Insert(e.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: vm("b", "e2-standard-4")})
	wantHTTPError(t, err, 409, "already exists")
}

func TestInsertValidation(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name     string
		inst     *computepb.Instance
		code     int
		fragment string
	}{
		{"machine type not offered in zone", func() *computepb.Instance {
			v := gpuVM("x")
			v.MachineType = proto.String("zones/" + zone + "/machineTypes/a4-highgpu-8g")
			return v
		}(), 400, "Machine type with name 'a4-highgpu-8g' does not exist in zone 'us-central1-a'"},
		{"unknown machine type", vm("x", "n1-standard-3"), 400, "does not exist in zone"},
		{"GPU without TERMINATE", vm("x", "a3-highgpu-8g"), 400, "Instances with guest accelerators do not support live migration"},
		{"bad name", vm("X_bad", "e2-standard-2"), 400, "resource.name"},
		{"bad metadata key", func() *computepb.Instance {
			v := vm("x", "e2-standard-2")
			v.Metadata = &computepb.Metadata{Items: []*computepb.Items{{Key: proto.String("bad key"), Value: proto.String("v")}}}
			return v
		}(), 400, "[a-zA-Z0-9-_]{1,128}"},
		{"metadata value too large", func() *computepb.Instance {
			v := vm("x", "e2-standard-2")
			v.Metadata = &computepb.Metadata{Items: []*computepb.Items{{Key: proto.String("k"), Value: proto.String(strings.Repeat("a", 262145))}}}
			return v
		}(), 400, "262144"},
		{"metadata total too large", func() *computepb.Instance {
			v := vm("x", "e2-standard-2")
			for i := range 3 {
				v.Metadata = &computepb.Metadata{Items: append(v.GetMetadata().GetItems(), &computepb.Items{Key: proto.String(string(rune('a' + i))), Value: proto.String(strings.Repeat("a", 200000))})}
			}
			return v
		}(), 400, "512 KB"},
		{"bad label", func() *computepb.Instance {
			v := vm("x", "e2-standard-2")
			v.Labels = map[string]string{"Bad": "x"}
			return v
		}(), 400, "label key \"Bad\" is invalid"},
		{"missing subnetwork", func() *computepb.Instance {
			v := vm("x", "e2-standard-2")
			v.NetworkInterfaces[0].Subnetwork = proto.String("regions/" + region + "/subnetworks/nope")
			return v
		}(), 404, "subnetworks/nope"},
		{"custom network needs subnetwork", func() *computepb.Instance {
			v := vm("x", "e2-standard-2")
			v.NetworkInterfaces[0] = &computepb.NetworkInterface{Network: proto.String("global/networks/net")}
			return v
		}(), 400, "Subnetwork should be specified"},
		{"spot with flex fields", func() *computepb.Instance {
			v := gpuVM("x")
			v.Scheduling.ProvisioningModel = proto.String("FLEX_START")
			return v
		}(), 400, "maxRunDuration"},
		{"no disk", func() *computepb.Instance {
			v := vm("x", "e2-standard-2")
			v.Disks = nil
			return v
		}(), 400, "boot disk"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.instances.Insert(e.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: c.inst})
			wantHTTPError(t, err, c.code, c.fragment)
		})
	}
	if n := len(e.srv.Store.List("compute.instances", "")); n != 0 {
		t.Fatalf("%d instances stored after rejected inserts", n)
	}
	// The same GPU VM with TERMINATE is fine and shows its GPUs.
	e.mustInsert(gpuVM("gpu"))
	acc := e.mustGet("gpu").GetGuestAccelerators()
	if len(acc) != 1 || acc[0].GetAcceleratorCount() != 8 || !strings.HasSuffix(acc[0].GetAcceleratorType(), "/nvidia-h100-80gb") {
		t.Fatalf("guestAccelerators = %v", acc)
	}
}

func TestListFilterAndPagination(t *testing.T) {
	e := newEnv(t)
	// 1,200 VMs through two bulk inserts (600 per role).
	for _, role := range []string{"compute", "login"} {
		props := &computepb.InstanceProperties{
			MachineType:       proto.String("e2-standard-2"),
			Labels:            map[string]string{"role": role},
			Disks:             vm("x", "e2-standard-2").Disks,
			NetworkInterfaces: vm("x", "e2-standard-2").NetworkInterfaces,
		}
		op, err := e.instances.BulkInsert(e.ctx, &computepb.BulkInsertInstanceRequest{Project: project, Zone: zone,
			BulkInsertInstanceResourceResource: &computepb.BulkInsertInstanceResource{
				Count: proto.Int64(600), NamePattern: proto.String(role + "-####"), InstanceProperties: props}})
		if err != nil {
			t.Fatal(err)
		}
		if err := op.Wait(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	count := func(filter string, max uint32) int {
		req := &computepb.ListInstancesRequest{Project: project, Zone: zone, MaxResults: proto.Uint32(max)}
		if filter != "" {
			req.Filter = proto.String(filter)
		}
		it := e.instances.List(e.ctx, req)
		n := 0
		for {
			inst, err := it.Next()
			if err == iterator.Done {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if inst.GetStatus() != "RUNNING" {
				t.Fatalf("%s is %s", inst.GetName(), inst.GetStatus())
			}
			n++
		}
		return n
	}
	if n := count("", 500); n != 1200 {
		t.Errorf("listed %d, want 1200", n)
	}
	if n := count("labels.role = login", 500); n != 600 {
		t.Errorf("labels.role = login: %d, want 600", n)
	}
	if n := count(`name eq "compute-00[0-9][0-9]"`, 100); n != 99 {
		t.Errorf("name eq regex: %d, want 99", n)
	}
	if n := count(`(labels.role = compute) AND (name eq "compute-000[1-5]")`, 500); n != 5 {
		t.Errorf("AND filter: %d, want 5", n)
	}
	agg := e.instances.AggregatedList(e.ctx, &computepb.AggregatedListInstancesRequest{Project: project, Filter: proto.String("labels.role = compute"), MaxResults: proto.Uint32(500)})
	inZone := 0
	for {
		pair, err := agg.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(pair.Value.GetInstances()) > 0 && pair.Key != "zones/"+zone {
			t.Fatalf("instances under scope %s", pair.Key)
		}
		inZone += len(pair.Value.GetInstances())
	}
	if inZone != 600 {
		t.Errorf("aggregatedList with label filter: %d, want 600", inZone)
	}
	// The first page holds 500 items and a token.
	it := e.instances.List(e.ctx, &computepb.ListInstancesRequest{Project: project, Zone: zone, MaxResults: proto.Uint32(500)})
	if _, err := it.Next(); err != nil {
		t.Fatal(err)
	}
	if it.PageInfo().Remaining() != 499 || it.PageInfo().Token == "" {
		t.Errorf("first page: remaining %d token %q, want 499 and a token", it.PageInfo().Remaining(), it.PageInfo().Token)
	}
}

func TestSetMetadataAndLabelsFingerprints(t *testing.T) {
	e := newEnv(t)
	e.mustInsert(vm("a", "e2-standard-2"))
	inst := e.mustGet("a")
	fp := inst.GetMetadata().GetFingerprint()

	_, err := e.instances.SetMetadata(e.ctx, &computepb.SetMetadataInstanceRequest{Project: project, Zone: zone, Instance: "a",
		MetadataResource: &computepb.Metadata{Fingerprint: proto.String("stale"), Items: []*computepb.Items{{Key: proto.String("k"), Value: proto.String("v")}}}})
	wantHTTPError(t, err, 412, "Supplied fingerprint does not match current metadata fingerprint.")

	op, err := e.instances.SetMetadata(e.ctx, &computepb.SetMetadataInstanceRequest{Project: project, Zone: zone, Instance: "a",
		MetadataResource: &computepb.Metadata{Fingerprint: proto.String(fp), Items: []*computepb.Items{{Key: proto.String("k"), Value: proto.String("v")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(e.ctx); err != nil {
		t.Fatal(err)
	}
	got := e.mustGet("a").GetMetadata()
	if got.GetFingerprint() == fp || len(got.GetItems()) != 1 || got.GetItems()[0].GetValue() != "v" {
		t.Fatalf("metadata after set: %v (old fingerprint %s)", got, fp)
	}
	// The old fingerprint is now stale.
	_, err = e.instances.SetMetadata(e.ctx, &computepb.SetMetadataInstanceRequest{Project: project, Zone: zone, Instance: "a",
		MetadataResource: &computepb.Metadata{Fingerprint: proto.String(fp)}})
	wantHTTPError(t, err, 412, "does not match current metadata fingerprint")

	lfp := e.mustGet("a").GetLabelFingerprint()
	_, err = e.instances.SetLabels(e.ctx, &computepb.SetLabelsInstanceRequest{Project: project, Zone: zone, Instance: "a",
		InstancesSetLabelsRequestResource: &computepb.InstancesSetLabelsRequest{LabelFingerprint: proto.String("nope"), Labels: map[string]string{"a": "b"}}})
	wantHTTPError(t, err, 412, "Labels fingerprint either invalid or resource labels have changed")
	op, err = e.instances.SetLabels(e.ctx, &computepb.SetLabelsInstanceRequest{Project: project, Zone: zone, Instance: "a",
		InstancesSetLabelsRequestResource: &computepb.InstancesSetLabelsRequest{LabelFingerprint: proto.String(lfp), Labels: map[string]string{"a": "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(e.ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.mustGet("a"); got.GetLabels()["a"] != "b" || got.GetLabelFingerprint() == lfp {
		t.Fatalf("labels after set: %v %s", got.GetLabels(), got.GetLabelFingerprint())
	}
}

func TestStopStartReset(t *testing.T) {
	e := newEnv(t)
	e.mustInsert(vm("a", "e2-standard-2"))
	wait := func(op *compute.Operation, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if err := op.Wait(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	req := func() (string, string, string) { return project, zone, "a" }
	p, z, n := req()
	op, err := e.instances.Stop(e.ctx, &computepb.StopInstanceRequest{Project: p, Zone: z, Instance: n})
	wait(op, err)
	if st := e.mustGet("a").GetStatus(); st != "TERMINATED" {
		t.Fatalf("after stop: %s", st)
	}
	_, err = e.instances.Reset(e.ctx, &computepb.ResetInstanceRequest{Project: p, Zone: z, Instance: n})
	wantHTTPError(t, err, 400, "is not ready")
	op, err = e.instances.Start(e.ctx, &computepb.StartInstanceRequest{Project: p, Zone: z, Instance: n})
	wait(op, err)
	got := e.mustGet("a")
	if got.GetStatus() != "RUNNING" || got.GetLastStopTimestamp() == "" {
		t.Fatalf("after start: %s (lastStop %q)", got.GetStatus(), got.GetLastStopTimestamp())
	}
	op, err = e.instances.Reset(e.ctx, &computepb.ResetInstanceRequest{Project: p, Zone: z, Instance: n})
	wait(op, err)
	out, err := e.instances.GetSerialPortOutput(e.ctx, &computepb.GetSerialPortOutputInstanceRequest{Project: p, Zone: z, Instance: n})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.GetContents(), "reset requested") || strings.Count(out.GetContents(), "login:") != 3 {
		t.Fatalf("serial output does not show boot, restart and reset:\n%s", out.GetContents())
	}
	// Reading on from next returns nothing new.
	more, err := e.instances.GetSerialPortOutput(e.ctx, &computepb.GetSerialPortOutputInstanceRequest{Project: p, Zone: z, Instance: n, Start: proto.Int64(out.GetNext())})
	if err != nil || more.GetContents() != "" || more.GetNext() != out.GetNext() {
		t.Fatalf("read from next: %q next %d (want empty, %d), err %v", more.GetContents(), more.GetNext(), out.GetNext(), err)
	}
	// Starting a stopped VM into a stockout fails and leaves it TERMINATED.
	op, err = e.instances.Stop(e.ctx, &computepb.StopInstanceRequest{Project: p, Zone: z, Instance: n})
	wait(op, err)
	if err := e.srv.Faults.Apply(core.FaultSpec{Stockouts: []core.Stockout{{Zone: zone}}}); err != nil {
		t.Fatal(err)
	}
	op, err = e.instances.Start(e.ctx, &computepb.StartInstanceRequest{Project: p, Zone: z, Instance: n})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(e.ctx); err == nil || !strings.Contains(err.Error(), "does not have enough resources") {
		t.Fatalf("start into stockout: %v", err)
	}
	if st := e.mustGet("a").GetStatus(); st != "TERMINATED" {
		t.Fatalf("after failed start: %s", st)
	}
}

func TestQuotaExceededOperationError(t *testing.T) {
	e := newEnv(t)
	e.srv.Quotas.SetLimit(region, "NVIDIA_H100_GPUS", 16)
	e.mustInsert(gpuVM("g1"))
	e.mustInsert(gpuVM("g2"))
	op, err := e.instances.Insert(e.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: gpuVM("g3")})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(e.ctx); err == nil {
		t.Fatal("third GPU VM succeeded over quota")
	}
	p := op.Proto()
	if p.GetHttpErrorStatusCode() != 403 || len(p.GetError().GetErrors()) != 1 {
		t.Fatalf("operation: %v", p)
	}
	oe := p.GetError().GetErrors()[0]
	if oe.GetCode() != "QUOTA_EXCEEDED" || oe.GetMessage() != "Quota NVIDIA_H100_GPUS exceeded. Limit: 16.0 in region us-central1." {
		t.Fatalf("error: %v", oe)
	}
	var qi *computepb.QuotaExceededInfo
	for _, d := range oe.GetErrorDetails() {
		if d.GetQuotaInfo() != nil {
			qi = d.GetQuotaInfo()
		}
	}
	if qi == nil || qi.GetLimit() != 16 || qi.GetDimensions()["region"] != region {
		t.Fatalf("quotaInfo: %v", qi)
	}
	if _, err := e.get("g3"); httpCode(err) != 404 {
		t.Fatalf("failed VM still visible: %v", err)
	}
	if q := e.srv.Quotas.Get(region, "NVIDIA_H100_GPUS"); q.Usage != 16 {
		t.Fatalf("GPU usage %v, want 16", q.Usage)
	}
}

func TestStockoutFault(t *testing.T) {
	e := newEnv(t)
	if err := e.srv.Faults.Apply(core.FaultSpec{Stockouts: []core.Stockout{{Zone: zone, MachineType: "a3-highgpu-8g"}}}); err != nil {
		t.Fatal(err)
	}
	op, err := e.instances.Insert(e.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: gpuVM("g")})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(e.ctx); err == nil {
		t.Fatal("insert succeeded into a stockout")
	}
	if c := op.Proto().GetError().GetErrors()[0].GetCode(); c != "ZONE_RESOURCE_POOL_EXHAUSTED" || op.Proto().GetHttpErrorStatusCode() != 503 {
		t.Fatalf("error %s / %d", c, op.Proto().GetHttpErrorStatusCode())
	}
	if _, err := e.get("g"); httpCode(err) != 404 {
		t.Fatalf("stocked-out VM remains: %v", err)
	}
	// Other machine types still fit.
	e.mustInsert(vm("small", "e2-standard-2"))
}

func TestReservationConsumption(t *testing.T) {
	e := newEnv(t)
	e.seedReservation("h100", "a3-highgpu-8g", 2, true)
	affinity := &computepb.ReservationAffinity{ConsumeReservationType: proto.String("SPECIFIC_RESERVATION"),
		Key: proto.String("compute.googleapis.com/reservation-name"), Values: []string{"h100"}}
	for _, n := range []string{"r1", "r2"} {
		v := gpuVM(n)
		v.ReservationAffinity = affinity
		e.mustInsert(v)
	}
	res, err := e.resv.Get(e.ctx, &computepb.GetReservationRequest{Project: project, Zone: zone, Reservation: "h100"})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetSpecificReservation().GetInUseCount() != 2 || res.GetStatus() != "READY" {
		t.Fatalf("reservation: %v", res)
	}
	if !strings.HasSuffix(e.mustGet("r1").GetResourceStatus().GetReservationConsumptionInfo().GetConsumedReservation(), "/reservations/h100") {
		t.Errorf("consumedReservation not reported")
	}
	// Reserved VMs hold only the instance quota: the reservation holds CPUs and GPUs.
	if q := e.srv.Quotas.Get(region, "NVIDIA_H100_GPUS"); q.Usage != 0 {
		t.Errorf("GPU quota charged for reserved VMs: %v", q.Usage)
	}
	v := gpuVM("r3")
	v.ReservationAffinity = affinity
	op, err := e.instances.Insert(e.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: v})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(e.ctx); err == nil || !strings.Contains(err.Error(), "does not have available resources for the request") {
		t.Fatalf("exhausted reservation: %v", err)
	}
	// A machine type the reservation does not hold is refused at once.
	e.seedReservation("small", "e2-standard-2", 5, true)
	w := gpuVM("r4")
	w.ReservationAffinity = &computepb.ReservationAffinity{ConsumeReservationType: proto.String("SPECIFIC_RESERVATION"),
		Key: proto.String("compute.googleapis.com/reservation-name"), Values: []string{"small"}}
	_, err = e.instances.Insert(e.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: w})
	wantHTTPError(t, err, 400, "No available resources in specified reservations")

	op, err = e.instances.Delete(e.ctx, &computepb.DeleteInstanceRequest{Project: project, Zone: zone, Instance: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(e.ctx); err != nil {
		t.Fatal(err)
	}
	res, _ = e.resv.Get(e.ctx, &computepb.GetReservationRequest{Project: project, Zone: zone, Reservation: "h100"})
	if res.GetSpecificReservation().GetInUseCount() != 1 {
		t.Fatalf("inUseCount after delete = %d, want 1", res.GetSpecificReservation().GetInUseCount())
	}
	// ANY_RESERVATION (the default) consumes a matching non-specific reservation.
	e.seedReservation("open", "e2-standard-2", 1, false)
	e.mustInsert(vm("any", "e2-standard-2"))
	res, _ = e.resv.Get(e.ctx, &computepb.GetReservationRequest{Project: project, Zone: zone, Reservation: "open"})
	if res.GetSpecificReservation().GetInUseCount() != 1 {
		t.Fatalf("default affinity did not consume the open reservation: %v", res)
	}
}

func TestGuestAttributesAPI(t *testing.T) {
	e := newEnv(t)
	v := vm("a", "e2-standard-2")
	v.Metadata = &computepb.Metadata{Items: []*computepb.Items{{Key: proto.String("enable-guest-attributes"), Value: proto.String("TRUE")}}}
	e.mustInsert(v)
	_, err := e.instances.GetGuestAttributes(e.ctx, &computepb.GetGuestAttributesInstanceRequest{Project: project, Zone: zone, Instance: "a", QueryPath: proto.String("hypercompute/")})
	wantHTTPError(t, err, 404, "was not found")
	key := "projects/" + project + "/zones/" + zone + "/instances/a"
	if err := e.svc.PutGuestAttribute(key, "hypercompute", "bootstrap", "done"); err != nil {
		t.Fatal(err)
	}
	ga, err := e.instances.GetGuestAttributes(e.ctx, &computepb.GetGuestAttributesInstanceRequest{Project: project, Zone: zone, Instance: "a", QueryPath: proto.String("hypercompute/")})
	if err != nil {
		t.Fatal(err)
	}
	items := ga.GetQueryValue().GetItems()
	if len(items) != 1 || items[0].GetKey() != "bootstrap" || items[0].GetValue() != "done" {
		t.Fatalf("queryValue: %v", ga)
	}
	ga, err = e.instances.GetGuestAttributes(e.ctx, &computepb.GetGuestAttributesInstanceRequest{Project: project, Zone: zone, Instance: "a", VariableKey: proto.String("hypercompute/bootstrap")})
	if err != nil || ga.GetVariableValue() != "done" {
		t.Fatalf("variableKey: %v %v", ga, err)
	}
}
