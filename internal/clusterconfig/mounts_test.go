package clusterconfig_test

import (
	"slices"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

func TestMountEntries(t *testing.T) {
	m := cc.Mounts{
		Home:   cc.NFSMount{Server: "10.0.1.2", Share: "/vol1", Version: "4.1", NConnect: 8},
		Lustre: &cc.LustreMount{Address: "10.0.2.5", FSName: "lfs", MountPoint: "/data"},
	}
	got := cc.MountEntries(m)
	want := []cc.MountEntry{
		{Source: "10.0.1.2:/vol1", Target: "/home", FSType: "nfs",
			Options: "rw,hard,timeo=600,retrans=3,rsize=1048576,wsize=1048576,proto=tcp,vers=4.1,nconnect=8,_netdev"},
		{Source: "10.0.2.5@tcp:/lfs", Target: "/data", FSType: "lustre", Options: "defaults,_netdev"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("entries = %+v\nwant %+v", got, want)
	}
}

func TestValidateMounts(t *testing.T) {
	home := cc.NFSMount{Server: "10.0.1.2", Share: "/share"}
	bucket := func(name, mp, profile string) []cc.BucketMount {
		return []cc.BucketMount{{Bucket: name, MountPoint: mp, Profile: profile}}
	}
	tests := []struct {
		name     string
		m        cc.Mounts
		contains string
	}{
		{"ok", cc.Mounts{Home: home, Buckets: bucket("my-data", "/gcs/data", "training")}, ""},
		{"home by name", cc.Mounts{Home: cc.NFSMount{Server: "filer", Share: "/share"}}, `home NFS server "filer" is not an IP address`},
		{"relative share", cc.Mounts{Home: cc.NFSMount{Server: "10.0.1.2", Share: "share"}}, "absolute export path"},
		{"nfs v4.0", cc.Mounts{Home: cc.NFSMount{Server: "10.0.1.2", Share: "/s", Version: "4"}}, `version "4" is not supported`},
		{"long lustre name", cc.Mounts{Home: home, Lustre: &cc.LustreMount{Address: "10.0.0.9", FSName: "scratchfs1"}}, "1-8 lowercase letters"},
		{"bad bucket", cc.Mounts{Home: home, Buckets: bucket("My_Bucket", "/gcs", "training")}, "not a valid Cloud Storage bucket name"},
		{"bad profile", cc.Mounts{Home: home, Buckets: bucket("data", "/gcs", "serving")}, `profile "serving" is not supported`},
		{"bucket without mount point", cc.Mounts{Home: home, Buckets: bucket("data", "", "training")}, "must be a clean absolute path"},
		{"bucket on home", cc.Mounts{Home: home, Buckets: bucket("data", "/home", "training")}, "mount point /home is used twice"},
		{"bucket inside lustre", cc.Mounts{Home: home, Lustre: &cc.LustreMount{Address: "10.0.0.9", FSName: "lfs"}, Buckets: bucket("data", "/lustre/gcs", "training")},
			"mount point /lustre/gcs lies inside /lustre"},
		{"unclean path", cc.Mounts{Home: home, Buckets: bucket("data", "/gcs/../etc", "training")}, "clean absolute path"},
	}
	for _, tc := range tests {
		checkErr(t, tc.name, cc.ValidateMounts(tc.m), tc.contains)
	}
}
