package filestore

import (
	"testing"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"google.golang.org/protobuf/proto"
)

func TestMismatch(t *testing.T) {
	d := &desired{project: "p1", location: "us-central1-a", name: "home", inst: &filestorepb.Instance{
		Tier:       filestorepb.Instance_BASIC_HDD,
		FileShares: []*filestorepb.FileShareConfig{{Name: "home", CapacityGb: 1024}},
		Networks: []*filestorepb.NetworkConfig{{Network: "projects/p1/global/networks/ml", ConnectMode: filestorepb.NetworkConfig_PRIVATE_SERVICE_ACCESS,
			ReservedIpRange: "ml-psa"}},
		Labels: map[string]string{"a": "b"}, DeletionProtectionEnabled: true,
	}}
	same := &filestorepb.Instance{
		Tier:       filestorepb.Instance_STANDARD, // the legacy name of BASIC_HDD
		FileShares: []*filestorepb.FileShareConfig{{Name: "home", CapacityGb: 1024}},
		Networks: []*filestorepb.NetworkConfig{{Network: "ml", ConnectMode: filestorepb.NetworkConfig_PRIVATE_SERVICE_ACCESS,
			ReservedIpRange: "ml-psa", IpAddresses: []string{"10.1.0.2"}}},
		Protocol: filestorepb.Instance_NFS_V3, Labels: map[string]string{"a": "b"}, DeletionProtectionEnabled: true,
	}
	if m := d.mismatch(same); m != "" {
		t.Errorf("the instance this plan creates differs in %s", m)
	}
	other := proto.Clone(same).(*filestorepb.Instance)
	other.FileShares[0].CapacityGb = 2048
	if m := d.mismatch(other); m != "share.capacity_gb" {
		t.Errorf("mismatch = %q, want share.capacity_gb", m)
	}
	other = proto.Clone(same).(*filestorepb.Instance)
	other.Labels = nil
	if m := d.mismatch(other); m != "labels" {
		t.Errorf("mismatch = %q, want labels", m)
	}
}

func TestMountOptions(t *testing.T) {
	if got := mountOptions(protocolNFSv41); got != "rw,hard,timeo=600,retrans=3,rsize=1048576,wsize=1048576,resvport,_netdev,vers=4.1" {
		t.Errorf("NFSv4.1 options = %q", got)
	}
}
