package filestore_test

import (
	"testing"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest/psatest"
)

const zone, parent = psatest.Zone, psatest.Parent

var apiErr = psatest.APIError

func instName(id string) string { return parent + "/instances/" + id }

// zonal is a valid ZONAL instance on network's private service access.
func zonal(network string) *filestorepb.Instance {
	return &filestorepb.Instance{
		Tier:       filestorepb.Instance_ZONAL,
		FileShares: []*filestorepb.FileShareConfig{{Name: "home", CapacityGb: 1024}},
		Networks: []*filestorepb.NetworkConfig{{
			Network:     "projects/" + psatest.Project + "/global/networks/" + network,
			ConnectMode: filestorepb.NetworkConfig_PRIVATE_SERVICE_ACCESS,
		}},
		Labels: map[string]string{"role": "home"},
	}
}

func edit(inst *filestorepb.Instance, fn func(*filestorepb.Instance)) *filestorepb.Instance {
	c := proto.Clone(inst).(*filestorepb.Instance)
	fn(c)
	return c
}

// create runs instances.create through the REST client and waits for it.
func create(t *testing.T, e *psatest.Env, id string, inst *filestorepb.Instance) (*filestorepb.Instance, error) {
	t.Helper()
	op, err := e.FilestoreClient.CreateInstance(e.Ctx, &filestorepb.CreateInstanceRequest{Parent: parent, InstanceId: id, Instance: inst})
	if err != nil {
		return nil, err
	}
	return op.Wait(e.Ctx)
}

func mustCreate(t *testing.T, e *psatest.Env, id string, inst *filestorepb.Instance) *filestorepb.Instance {
	t.Helper()
	got, err := create(t, e, id, inst)
	if err != nil {
		t.Fatalf("creating %s: %v", id, err)
	}
	return got
}
