package core

import "testing"

// Each scope covers exactly the methods Google's discovery documents list it for.
func TestCoversScopeTable(t *testing.T) {
	s := func(names ...string) []string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = ScopePrefix + n
		}
		return out
	}
	cases := []struct {
		scopes []string
		method string
		class  Class
		want   bool
	}{
		{s("cloud-platform"), "compute.instances.delete", Mutating, true},
		{s("cloud-platform"), "file.projects.locations.instances.create", Mutating, true},
		{s("cloud-platform.read-only"), "compute.instances.get", Read, true},
		{s("cloud-platform.read-only"), "compute.instances.delete", Mutating, false},
		{s("compute"), "compute.instances.bulkInsert", Mutating, true},
		{s("compute.readonly"), "compute.instances.list", Read, true},
		{s("compute.readonly"), "compute.instances.delete", Mutating, false},
		{s("compute"), "storage.objects.get", Read, false},
		{s("devstorage.read_only"), "storage.objects.get", Read, true},
		{s("devstorage.read_only"), "storage.objects.insert", Mutating, false},
		{s("devstorage.read_write"), "storage.objects.insert", Mutating, true},
		{s("devstorage.read_write"), "storage.bucketAccessControls.insert", Mutating, false},
		{s("devstorage.full_control"), "storage.bucketAccessControls.insert", Mutating, true},
		{s("devstorage.read_write"), "compute.instances.get", Read, false},
		{s("logging.write", "monitoring.write"), "compute.instances.get", Read, false},
		{s("devstorage.read_write"), "file.projects.locations.instances.list", Read, false},
		{s("logging.write", "monitoring.write"), "monitoring.projects.timeSeries.create", Mutating, true},
		{s("monitoring.write"), "monitoring.projects.alertPolicies.create", Mutating, false},
		{s("monitoring.write"), "monitoring.projects.timeSeries.list", Read, false},
		{s("monitoring.read"), "monitoring.projects.timeSeries.list", Read, true},
		{s("monitoring"), "monitoring.projects.dashboards.patch", Mutating, true},
		{nil, "compute.instances.get", Read, false},
	}
	for _, c := range cases {
		if got := Covers(c.scopes, c.method, c.class); got != c.want {
			t.Errorf("Covers(%v, %s, %v) = %v, want %v", c.scopes, c.method, c.class, got, c.want)
		}
	}
	if svc, m := rpcName("compute.instances.bulkInsert"); svc != "compute.googleapis.com" || m != "compute.v1.InstancesService.BulkInsert" {
		t.Errorf("rpcName: %s %s", svc, m)
	}
}
