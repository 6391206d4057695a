package instances_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/proto"
)

func props(machineType string) *computepb.InstanceProperties {
	base := vm("x", machineType)
	p := &computepb.InstanceProperties{MachineType: proto.String(machineType), Disks: base.Disks, NetworkInterfaces: base.NetworkInterfaces}
	if strings.HasPrefix(machineType, "a3-") {
		p.Scheduling = &computepb.Scheduling{OnHostMaintenance: proto.String("TERMINATE")}
	}
	return p
}

// bulk runs a zonal bulkInsert and returns its finished operation (the Wait error is not fatal).
func (e *env) bulk(res *computepb.BulkInsertInstanceResource) (*compute.Operation, error) {
	e.t.Helper()
	op, err := e.instances.BulkInsert(e.ctx, &computepb.BulkInsertInstanceRequest{Project: project, Zone: zone, BulkInsertInstanceResourceResource: res})
	if err != nil {
		e.t.Fatalf("bulkInsert: %v", err)
	}
	return op, op.Wait(e.ctx)
}

func (e *env) names() []string {
	var out []string
	for _, rec := range e.srv.Store.List("compute.instances", "") {
		out = append(out, rec.Key[strings.LastIndex(rec.Key, "/")+1:])
	}
	sort.Strings(out)
	return out
}

func TestBulkInsertThousand(t *testing.T) {
	e := newEnv(t)
	start := time.Now()
	op, err := e.bulk(&computepb.BulkInsertInstanceResource{Count: proto.Int64(1000), NamePattern: proto.String("node-####"), InstanceProperties: props("e2-standard-2")})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bulkInsert of 1000 VMs took %v", elapsed)
	if elapsed > 2*time.Second {
		t.Errorf("bulkInsert of 1000 VMs took %v; it must stay well under a second on a normal machine", elapsed)
	}
	p := op.Proto()
	if p.GetOperationType() != "bulkInsert" || p.GetOperationGroupId() == "" {
		t.Fatalf("operation: %v", p)
	}
	st := p.GetInstancesBulkInsertOperationMetadata().GetPerLocationStatus()["zones/"+zone]
	if st.GetCreatedVmCount() != 1000 || st.GetTargetVmCount() != 1000 || st.GetFailedToCreateVmCount() != 0 || st.GetStatus() != "DONE" {
		t.Fatalf("perLocationStatus: %v", st)
	}
	names := e.names()
	if len(names) != 1000 || names[0] != "node-0001" || names[999] != "node-1000" {
		t.Fatalf("names: %d, first %s, last %s", len(names), names[0], names[len(names)-1])
	}
	ips := map[string]bool{}
	for _, rec := range e.srv.Store.List("compute.instances", "") {
		var inst computepb.Instance
		if err := rec.Decode(&inst); err != nil {
			t.Fatal(err)
		}
		if inst.GetStatus() != "RUNNING" {
			t.Fatalf("%s is %s", inst.GetName(), inst.GetStatus())
		}
		ips[inst.GetNetworkInterfaces()[0].GetNetworkIP()] = true
	}
	if len(ips) != 1000 {
		t.Fatalf("%d distinct addresses for 1000 VMs", len(ips))
	}
	if q := e.srv.Quotas.Get(region, "INSTANCES"); q.Usage != 1000 {
		t.Errorf("INSTANCES usage %v", q.Usage)
	}
}

func TestBulkNumberingContinuesAfterExisting(t *testing.T) {
	e := newEnv(t)
	e.mustInsert(vm("node-0003", "e2-standard-2"))
	e.mustInsert(vm("other-0009", "e2-standard-2"))
	if _, err := e.bulk(&computepb.BulkInsertInstanceResource{Count: proto.Int64(2), NamePattern: proto.String("node-####"), InstanceProperties: props("e2-standard-2")}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(e.names(), ","); got != "node-0003,node-0004,node-0005,other-0009" {
		t.Fatalf("names = %s", got)
	}
	// perInstanceProperties name VMs and set hostnames.
	if _, err := e.bulk(&computepb.BulkInsertInstanceResource{Count: proto.Int64(1), InstanceProperties: props("e2-standard-2"),
		PerInstanceProperties: map[string]*computepb.BulkInsertInstanceResourcePerInstanceProperties{"login-a": {Hostname: proto.String("login-a.cluster.example")}}}); err != nil {
		t.Fatal(err)
	}
	if h := e.mustGet("login-a").GetHostname(); h != "login-a.cluster.example" {
		t.Fatalf("hostname = %q", h)
	}
	// Pattern validation is synchronous.
	_, err := e.instances.BulkInsert(e.ctx, &computepb.BulkInsertInstanceRequest{Project: project, Zone: zone, BulkInsertInstanceResourceResource: &computepb.BulkInsertInstanceResource{
		Count: proto.Int64(2), NamePattern: proto.String("a-##-##"), InstanceProperties: props("e2-standard-2")}})
	wantHTTPError(t, err, 400, "exactly one sequence")
}

func TestBulkMinCountUnderPartialStockout(t *testing.T) {
	e := newEnv(t)
	e.svc.SetCapacity(zone, "a3-highgpu-8g", 3)

	// minCount 5 cannot be met with room for 3: everything created is rolled back.
	op, err := e.bulk(&computepb.BulkInsertInstanceResource{Count: proto.Int64(5), NamePattern: proto.String("gpu-##"), InstanceProperties: props("a3-highgpu-8g")})
	if err == nil {
		t.Fatal("bulkInsert below minCount succeeded")
	}
	p := op.Proto()
	if p.GetError().GetErrors()[0].GetCode() != "ZONE_RESOURCE_POOL_EXHAUSTED" || p.GetHttpErrorStatusCode() != 503 {
		t.Fatalf("operation error: %v", p.GetError())
	}
	st := p.GetInstancesBulkInsertOperationMetadata().GetPerLocationStatus()["zones/"+zone]
	if st.GetCreatedVmCount() != 0 || st.GetDeletedVmCount() != 3 || st.GetFailedToCreateVmCount() != 2 || st.GetTargetVmCount() != 5 {
		t.Fatalf("perLocationStatus after rollback: %v", st)
	}
	if n := len(e.names()); n != 0 {
		t.Fatalf("%d VMs remain after rollback", n)
	}
	if q := e.srv.Quotas.Get(region, "NVIDIA_H100_GPUS"); q.Usage != 0 {
		t.Fatalf("GPU quota still charged after rollback: %v", q.Usage)
	}
	if c := e.svc.Capacities(); len(c) != 1 || c[0].VMs != 3 {
		t.Fatalf("capacity after rollback: %+v", c)
	}

	// minCount 3 is reachable: three VMs, two failures, the operation succeeds.
	op, err = e.bulk(&computepb.BulkInsertInstanceResource{Count: proto.Int64(5), MinCount: proto.Int64(3), NamePattern: proto.String("gpu-##"), InstanceProperties: props("a3-highgpu-8g")})
	if err != nil {
		t.Fatalf("partial bulkInsert: %v", err)
	}
	st = op.Proto().GetInstancesBulkInsertOperationMetadata().GetPerLocationStatus()["zones/"+zone]
	if st.GetCreatedVmCount() != 3 || st.GetFailedToCreateVmCount() != 2 {
		t.Fatalf("perLocationStatus: %v", st)
	}
	if got := strings.Join(e.names(), ","); got != "gpu-01,gpu-02,gpu-03" {
		t.Fatalf("names = %s", got)
	}

	// The per-VM insert operations are listable by operationGroupId; the failed ones carry the stockout.
	filter := fmt.Sprintf("(operationType=insert) AND (operationGroupId=%s)", op.Proto().GetOperationGroupId())
	it := e.globalOps.AggregatedList(e.ctx, &computepb.AggregatedListGlobalOperationsRequest{Project: project, Filter: proto.String(filter)})
	ok, failed := 0, 0
	for {
		pair, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range pair.Value.GetOperations() {
			if o.GetOperationGroupId() != op.Proto().GetOperationGroupId() || o.GetOperationType() != "insert" {
				t.Fatalf("filter let through %v", o)
			}
			if o.GetError() != nil {
				failed++
				if o.GetError().GetErrors()[0].GetCode() != "ZONE_RESOURCE_POOL_EXHAUSTED" || o.GetHttpErrorStatusCode() != 503 {
					t.Errorf("per-VM error: %v", o.GetError())
				}
			} else {
				ok++
			}
		}
	}
	if ok != 3 || failed != 2 {
		t.Fatalf("per-VM operations: %d ok, %d failed; want 3 and 2", ok, failed)
	}
}

func TestBulkExistingNamesAreHarmless(t *testing.T) {
	e := newEnv(t)
	e.mustInsert(vm("n-a", "e2-standard-2"))
	op, err := e.bulk(&computepb.BulkInsertInstanceResource{Count: proto.Int64(2), InstanceProperties: props("e2-standard-2"),
		PerInstanceProperties: map[string]*computepb.BulkInsertInstanceResourcePerInstanceProperties{"n-a": {}, "n-b": {}}})
	if err != nil {
		t.Fatalf("bulkInsert with an existing name: %v", err)
	}
	st := op.Proto().GetInstancesBulkInsertOperationMetadata().GetPerLocationStatus()["zones/"+zone]
	if st.GetCreatedVmCount() != 1 || st.GetFailedToCreateVmCount() != 1 {
		t.Fatalf("perLocationStatus: %v", st)
	}
}

func TestRegionalBulkInsertSpillsOverZones(t *testing.T) {
	e := newEnv(t)
	e.svc.SetCapacity("us-central1-a", "a3-highgpu-8g", 2)
	op, err := e.region.BulkInsert(e.ctx, &computepb.BulkInsertRegionInstanceRequest{Project: project, Region: region,
		BulkInsertInstanceResourceResource: &computepb.BulkInsertInstanceResource{
			Count: proto.Int64(4), NamePattern: proto.String("r-#"), InstanceProperties: props("a3-highgpu-8g"),
			LocationPolicy: &computepb.LocationPolicy{Locations: map[string]*computepb.LocationPolicyLocation{
				"zones/us-central1-a": {Preference: proto.String("PREFERRED")},
				"zones/us-central1-c": {Preference: proto.String("ALLOW")},
				"zones/us-central1-b": {Preference: proto.String("DENY")},
			}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(e.ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(op.Proto().GetRegion(), "/regions/"+region) {
		t.Fatalf("not a region operation: %v", op.Proto())
	}
	pls := op.Proto().GetInstancesBulkInsertOperationMetadata().GetPerLocationStatus()
	if pls["zones/us-central1-a"].GetCreatedVmCount() != 2 || pls["zones/us-central1-c"].GetCreatedVmCount() != 2 {
		t.Fatalf("perLocationStatus: %v", pls)
	}
	var zones []string
	for _, rec := range e.srv.Store.List("compute.instances", "") {
		zones = append(zones, strings.Split(rec.Key, "/")[3])
	}
	if strings.Join(zones, ",") != "us-central1-a,us-central1-a,us-central1-c,us-central1-c" {
		t.Fatalf("zones: %v", zones)
	}
}

func TestTemplatesAndPlacementPolicies(t *testing.T) {
	e := newEnv(t)
	p := props("a3-highgpu-8g")
	p.Scheduling = nil // the placement policy makes TERMINATE the default
	p.ResourcePolicies = []string{"compact"}
	p.Metadata = &computepb.Metadata{Items: []*computepb.Items{{Key: proto.String("role"), Value: proto.String("compute")}}}
	op, err := e.templates.Insert(e.ctx, &computepb.InsertInstanceTemplateRequest{Project: project,
		InstanceTemplateResource: &computepb.InstanceTemplate{Name: proto.String("gpu-tmpl"), Properties: p}})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(e.ctx); err != nil {
		t.Fatal(err)
	}
	// Without the policy the template's VMs cannot be created.
	_, err = e.instances.BulkInsert(e.ctx, &computepb.BulkInsertInstanceRequest{Project: project, Zone: zone, BulkInsertInstanceResourceResource: &computepb.BulkInsertInstanceResource{
		Count: proto.Int64(1), NamePattern: proto.String("c-#"), SourceInstanceTemplate: proto.String("global/instanceTemplates/gpu-tmpl")}})
	wantHTTPError(t, err, 404, "resourcePolicies/compact")

	op, err = e.policies.Insert(e.ctx, &computepb.InsertResourcePolicyRequest{Project: project, Region: region, ResourcePolicyResource: &computepb.ResourcePolicy{
		Name: proto.String("compact"), GroupPlacementPolicy: &computepb.ResourcePolicyGroupPlacementPolicy{Collocation: proto.String("COLLOCATED"), VmCount: proto.Int32(2)}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(e.ctx); err != nil {
		t.Fatal(err)
	}
	// instanceProperties merge over the template (JSON merge patch): labels added, metadata from the template.
	op, err = e.bulk(&computepb.BulkInsertInstanceResource{Count: proto.Int64(2), NamePattern: proto.String("c-#"),
		SourceInstanceTemplate: proto.String("global/instanceTemplates/gpu-tmpl"),
		InstanceProperties:     &computepb.InstanceProperties{Labels: map[string]string{"partition": "a3"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := e.mustGet("c-1")
	if got.GetScheduling().GetOnHostMaintenance() != "TERMINATE" || got.GetLabels()["partition"] != "a3" ||
		len(got.GetMetadata().GetItems()) != 1 || !strings.HasSuffix(got.GetResourcePolicies()[0], "/regions/us-central1/resourcePolicies/compact") {
		t.Fatalf("VM from template: scheduling %v labels %v metadata %v policies %v", got.GetScheduling(), got.GetLabels(), got.GetMetadata(), got.GetResourcePolicies())
	}
	if got.GetResourceStatus().GetPhysicalHost() == "" {
		t.Errorf("GPU VM without physicalHost")
	}
	// The policy holds two VMs.
	v := gpuVM("c-3")
	v.ResourcePolicies = []string{"regions/us-central1/resourcePolicies/compact"}
	_, err = e.instances.Insert(e.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: v})
	wantHTTPError(t, err, 400, "holds at most 2 VMs")
	// Explicit MIGRATE contradicts the placement policy.
	v.Scheduling.OnHostMaintenance = proto.String("MIGRATE")
	_, err = e.instances.Insert(e.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: v})
	wantHTTPError(t, err, 400, "")
	// A policy in use cannot be deleted.
	_, err = e.policies.Delete(e.ctx, &computepb.DeleteResourcePolicyRequest{Project: project, Region: region, ResourcePolicy: "compact"})
	wantHTTPError(t, err, 400, "already being used")
	// Deleting a member makes room; insert with ?sourceInstanceTemplate= fills it.
	op, err = e.instances.Delete(e.ctx, &computepb.DeleteInstanceRequest{Project: project, Zone: zone, Instance: "c-2"})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(e.ctx); err != nil {
		t.Fatal(err)
	}
	tmplVM := &computepb.Instance{Name: proto.String("from-tmpl")}
	op, err = e.instances.Insert(e.ctx, &computepb.InsertInstanceRequest{Project: project, Zone: zone, InstanceResource: tmplVM,
		SourceInstanceTemplate: proto.String("projects/" + project + "/global/instanceTemplates/gpu-tmpl")})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(e.ctx); err != nil {
		t.Fatal(err)
	}
	if mt := e.mustGet("from-tmpl").GetMachineType(); !strings.HasSuffix(mt, "/machineTypes/a3-highgpu-8g") {
		t.Fatalf("machineType from template: %s", mt)
	}
}
