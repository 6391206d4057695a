package filestore

import (
	"context"
	"testing"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

func TestParseNetwork(t *testing.T) {
	for _, tc := range []struct{ ref, project, name string }{
		{"ml-dev", "p1", "ml-dev"},
		{"global/networks/ml-dev", "p1", "ml-dev"},
		{"projects/host/global/networks/ml-dev", "host", "ml-dev"},
		{"https://www.googleapis.com/compute/v1/projects/host/global/networks/ml-dev", "host", "ml-dev"},
	} {
		p, n, err := parseNetwork(tc.ref, "p1")
		if err != nil || p != tc.project || n != tc.name {
			t.Errorf("parseNetwork(%q) = %q, %q, %v; want %q, %q", tc.ref, p, n, err, tc.project, tc.name)
		}
	}
	for _, bad := range []string{"", "projects/p/networks/n", "ML", "projects//global/networks/n", "global/networks/-x"} {
		if _, _, err := parseNetwork(bad, "p1"); err == nil {
			t.Errorf("parseNetwork(%q) accepted", bad)
		}
	}
	if !sameNetwork("ml-dev", "https://www.googleapis.com/compute/v1/projects/p1/global/networks/ml-dev", "p1") {
		t.Error("a name and the self link of the same network differ")
	}
	if sameNetwork("ml-dev", "projects/other/global/networks/ml-dev", "p1") {
		t.Error("networks of different projects compare equal")
	}
	if got := networkRef("projects/p1/global/networks/ml-dev", "p1"); got != "ml-dev" {
		t.Errorf("networkRef in the same project = %q", got)
	}
	if got := networkRef("projects/host/global/networks/ml-dev", "p1"); got != "projects/host/global/networks/ml-dev" {
		t.Errorf("networkRef of a shared VPC = %q", got)
	}
}

func TestReadLabels(t *testing.T) {
	ctx := context.Background()
	p := &providerdata.Data{DefaultLabels: map[string]string{"team": "ml", "env": "dev"}}
	api := map[string]string{"team": "ml", "env": "prod", "added": "by-hand"}
	labels, effective, diags := readLabels(ctx, p, api, types.MapNull(types.StringType))
	if diags.HasError() {
		t.Fatal(diags)
	}
	got := map[string]string{}
	labels.ElementsAs(ctx, &got, false)
	// team is a plain provider default; env overrides the default and added was set by hand.
	if len(got) != 2 || got["env"] != "prod" || got["added"] != "by-hand" {
		t.Errorf("labels = %v", got)
	}
	if len(effective.Elements()) != 3 {
		t.Errorf("effective_labels = %v", effective)
	}
	prior, _ := types.MapValueFrom(ctx, types.StringType, map[string]string{"team": "ml"})
	labels, _, _ = readLabels(ctx, p, map[string]string{"team": "ml", "env": "dev"}, prior)
	got = map[string]string{}
	labels.ElementsAs(ctx, &got, false)
	if len(got) != 1 || got["team"] != "ml" {
		t.Errorf("a label the configuration sets to the default's value must stay in labels; got %v", got)
	}
	labels, _, _ = readLabels(ctx, p, map[string]string{"team": "ml", "env": "dev"}, types.MapNull(types.StringType))
	if !labels.IsNull() {
		t.Errorf("only defaults: labels = %v, want null", labels)
	}
}

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
