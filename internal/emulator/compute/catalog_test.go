package compute_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

func TestCatalogViews(t *testing.T) {
	env := emulatortest.Start(t)
	c := newClients(t, env)
	ctx := context.Background()

	z, err := c.zones.Get(ctx, &computepb.GetZoneRequest{Project: project, Zone: "us-central1-a"})
	if err != nil || z.GetRegion() != "https://www.googleapis.com/compute/v1/projects/test-project/regions/us-central1" || z.GetStatus() != "UP" {
		t.Fatalf("zone = %v, %v", z, err)
	}
	reg, err := c.regions.Get(ctx, &computepb.GetRegionRequest{Project: project, Region: "us-central1"})
	if err != nil || !slices.Contains(reg.GetZones(), z.GetSelfLink()) || len(reg.GetQuotas()) == 0 {
		t.Fatalf("region = %v, %v", reg, err)
	}
	env.SetQuota("us-central1", "NVIDIA_H100_GPUS", 16)
	reg, _ = c.regions.Get(ctx, &computepb.GetRegionRequest{Project: project, Region: "us-central1"})
	var h100 *computepb.Quota
	for _, q := range reg.GetQuotas() {
		if q.GetMetric() == "NVIDIA_H100_GPUS" {
			h100 = q
		}
	}
	if h100 == nil || h100.GetLimit() != 16 {
		t.Errorf("region quota NVIDIA_H100_GPUS = %v", h100)
	}

	mt, err := c.machineTypes.Get(ctx, &computepb.GetMachineTypeRequest{Project: project, Zone: "us-central1-a", MachineType: "a3-highgpu-8g"})
	if err != nil {
		t.Fatal(err)
	}
	if mt.GetGuestCpus() != 208 || len(mt.GetAccelerators()) != 1 || mt.GetAccelerators()[0].GetGuestAcceleratorType() != "nvidia-h100-80gb" ||
		mt.GetAccelerators()[0].GetGuestAcceleratorCount() != 8 || mt.GetZone() != "us-central1-a" || mt.GetMemoryMb() == 0 {
		t.Errorf("machine type = %v", mt)
	}
	_, err = c.machineTypes.Get(ctx, &computepb.GetMachineTypeRequest{Project: project, Zone: "us-central1-f", MachineType: "a3-highgpu-8g"})
	wantHTTPError(t, err, 404, "notFound", "The resource 'projects/test-project/zones/us-central1-f/machineTypes/a3-highgpu-8g' was not found")

	agg := c.machineTypes.AggregatedList(ctx, &computepb.AggregatedListMachineTypesRequest{Project: project})
	zonesWithA3 := 0
	for {
		pair, err := agg.Next()
		if err != nil {
			break
		}
		for _, m := range pair.Value.GetMachineTypes() {
			if m.GetName() == "a3-highgpu-8g" {
				zonesWithA3++
			}
		}
	}
	if zonesWithA3 == 0 {
		t.Error("aggregatedList shows a3-highgpu-8g nowhere")
	}
	it := c.zones.List(ctx, &computepb.ListZonesRequest{Project: project})
	n := 0
	for {
		if _, err := it.Next(); err != nil {
			break
		}
		n++
	}
	if n < 10 {
		t.Errorf("%d zones listed", n)
	}

	p, err := c.projects.Get(ctx, &computepb.GetProjectRequest{Project: project})
	if err != nil {
		t.Fatal(err)
	}
	if strconv.FormatUint(p.GetId(), 10) != emulator.ProjectNumber(project) || p.GetName() != project || len(emulator.ProjectNumber(project)) != 12 {
		t.Errorf("project = %v, number %s", p, emulator.ProjectNumber(project))
	}
	if emulator.ProjectNumber("a") == emulator.ProjectNumber("b") || emulator.ProjectNumber("a") != emulator.ProjectNumber("a") {
		t.Error("project numbers are not deterministic per id")
	}
}
