package clusterconfig_test

import (
	"slices"
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// storageCluster has two extra mounts (a Filestore share at /data that login VMs skip, a Lustre
// file system at /scratch) and a bucket, besides /home and the cluster's lustre.
func storageCluster() cc.Cluster {
	c := baseCluster("store")
	c.Mounts.Lustre = &cc.LustreMount{Address: "10.0.2.5", FSName: "lfs"}
	c.Mounts.Extra = []cc.ExtraMount{
		{MountPoint: "/scratch", Lustre: &cc.LustreMount{Address: "10.0.2.9", FSName: "scratch"}, Instance: "projects/p/locations/us-central1-a/instances/scratch"},
		{MountPoint: "/data", NFS: &cc.NFSMount{Server: "10.0.3.2", Share: "/data", Version: "3"}, NoLogin: true},
	}
	c.Mounts.Buckets = []cc.BucketMount{{Bucket: "store-datasets", MountPoint: "/gcs/data", Profile: cc.BucketProfileTraining}}
	return c
}

func targets(m cc.Mounts) []string {
	var out []string
	for _, e := range cc.MountEntries(m) {
		out = append(out, e.Target)
	}
	return out
}

func TestExtraMountEntries(t *testing.T) {
	m := storageCluster().Mounts
	if err := cc.ValidateMounts(m); err != nil {
		t.Fatal(err)
	}
	es := cc.MountEntries(m)
	if got, want := targets(m), []string{"/home", "/lustre", "/data", "/scratch", "/gcs/data"}; !slices.Equal(got, want) {
		t.Fatalf("targets = %v, want %v (/home first, the cluster's lustre, extras by path, buckets)", got, want)
	}
	if es[2].Source != "10.0.3.2:/data" || es[2].FSType != "nfs" || !strings.Contains(es[2].Options, "vers=3") || !strings.Contains(es[2].Options, "hard") {
		t.Errorf("extra NFS entry = %+v", es[2])
	}
	if es[3] != (cc.MountEntry{Source: "10.0.2.9@tcp:/scratch", Target: "/scratch", FSType: "lustre", Options: "defaults,_netdev"}) {
		t.Errorf("extra Lustre entry = %+v", es[3])
	}
}

func TestValidateExtraMounts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		edit     func(*cc.Mounts)
		contains string
	}{
		{"same path as a bucket", func(m *cc.Mounts) { m.Extra[0].MountPoint = "/gcs/data" }, "mount point /gcs/data is used twice"},
		{"at /home", func(m *cc.Mounts) { m.Extra[1].MountPoint = "/home" }, "mount point /home is used twice"},
		{"inside another", func(m *cc.Mounts) { m.Extra[1].MountPoint = "/scratch/data" }, "/scratch/data lies inside /scratch"},
		{"holding /home", func(m *cc.Mounts) { m.Extra[1].MountPoint = "/" }, "clean absolute path other than /"},
		{"relative", func(m *cc.Mounts) { m.Extra[1].MountPoint = "data" }, "clean absolute path"},
		{"both kinds", func(m *cc.Mounts) { m.Extra[1].Lustre = m.Extra[0].Lustre }, "storage at /data must be exactly one of"},
		{"neither kind", func(m *cc.Mounts) { m.Extra[1].NFS = nil }, "storage at /data must be exactly one of"},
		{"NFS by name", func(m *cc.Mounts) { m.Extra[1].NFS.Server = "filer" }, `storage at /data: NFS server "filer" is not an IP address`},
		{"bad fsname", func(m *cc.Mounts) { m.Extra[0].Lustre.FSName = "Scratch" }, `storage at /scratch: lustre file system name "Scratch" is invalid`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := storageCluster().Mounts
			tc.edit(&m)
			err := cc.ValidateMounts(m)
			if err == nil || !strings.Contains(err.Error(), tc.contains) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.contains)
			}
		})
	}
}

func TestNodeSetStorageChoice(t *testing.T) {
	c := storageCluster()
	part := cc.Partition{Name: "gpu", MachineType: "a3-highgpu-8g", StaticNodes: 1}
	node := func(p cc.Partition) []string {
		t.Helper()
		n, err := cc.NewNode(c, cc.RoleCompute, &p)
		if err != nil {
			t.Fatal(err)
		}
		return targets(n.Mounts)
	}
	if got, want := node(part), []string{"/home", "/lustre", "/data", "/scratch", "/gcs/data"}; !slices.Equal(got, want) {
		t.Errorf("no choice: %v, want every mount %v", got, want)
	}
	part.Storage = []string{"/scratch"}
	if got, want := node(part), []string{"/home", "/lustre", "/scratch"}; !slices.Equal(got, want) {
		t.Errorf("storage [/scratch]: %v, want %v", got, want)
	}
	part.Storage = []string{}
	if got, want := node(part), []string{"/home", "/lustre", "/data", "/scratch", "/gcs/data"}; !slices.Equal(got, want) {
		t.Errorf("storage []: %v, want every mount %v (empty is unset)", got, want)
	}
	login, err := cc.NewNode(c, cc.RoleLogin, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := targets(login.Mounts), []string{"/home", "/lustre", "/scratch", "/gcs/data"}; !slices.Equal(got, want) {
		t.Errorf("login: %v, want %v (/data has login = false)", got, want)
	}
	ctl, err := cc.NewNode(c, cc.RoleController, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := targets(ctl.Mounts); len(got) != 5 {
		t.Errorf("controller mounts %v, want all five", got)
	}

	for _, tc := range []struct {
		choice   []string
		index    int
		contains string
	}{
		{[]string{"/data", "/nope"}, 1, "/nope is not one of the cluster's storage or bucket mount paths ([/scratch /data /gcs/data])"},
		{[]string{"/home"}, 0, "/home is mounted on every node"},
		{[]string{"/lustre"}, 0, "/lustre is mounted on every node"},
		{[]string{"/data", "/data"}, 1, "/data is listed twice"},
	} {
		i, err := c.Mounts.CheckStorageChoice(tc.choice)
		if i != tc.index || err == nil || !strings.Contains(err.Error(), tc.contains) {
			t.Errorf("CheckStorageChoice(%v) = %d, %v; want %d and %q", tc.choice, i, err, tc.index, tc.contains)
		}
		part.Storage = tc.choice
		if _, err := cc.NewNode(c, cc.RoleCompute, &part); err == nil || !strings.Contains(err.Error(), tc.contains) {
			t.Errorf("NewNode with storage %v: %v", tc.choice, err)
		}
	}
	if _, err := (cc.Mounts{}).CheckStorageChoice([]string{"/data"}); err == nil || !strings.Contains(err.Error(), "the cluster has none") {
		t.Errorf("choice on a cluster without storage: %v", err)
	}

	// The choice is part of the partition's key and survives a round trip; no choice writes nothing.
	part.Storage = []string{"/scratch"}
	b, err := cc.EncodePartition("store", part)
	if err != nil {
		t.Fatal(err)
	}
	back, err := cc.DecodePartition("store", b)
	if err != nil || !slices.Equal(back.Storage, []string{"/scratch"}) {
		t.Fatalf("round trip: %v, %v", back.Storage, err)
	}
	part.Storage = nil
	if b, _ := cc.EncodePartition("store", part); strings.Contains(string(b), "storage") {
		t.Errorf("a partition without a choice renders %s", b)
	}
	gold, _ := cc.NewNode(c, cc.RoleCompute, &cc.Partition{Name: "gpu", MachineType: "a3-highgpu-8g", StaticNodes: 1, Storage: []string{"/scratch", "/gcs/data"}})
	rendered, err := cc.RenderNodeConfig(gold)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "node-compute-storage.json", rendered)
}
