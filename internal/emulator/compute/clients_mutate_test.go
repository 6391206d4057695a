package compute_test

import (
	"context"
	"testing"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// The official Go clients drive the in-place methods end to end: their requests are accepted, their operations
// (zonal, regional, global) complete through Wait, and the answers decode into computepb.
func TestClientsMutateDisksImagesRoutesRegionDisks(t *testing.T) {
	env := emulatortest.Start(t)
	ctx := context.Background()
	opts := env.ClientOptions()
	c := newClients(t, env)
	done := func(op *compute.Operation, err error) {
		t.Helper()
		wait(t, op, err)
	}
	insertNetwork(t, c, "net")
	disks, err := compute.NewDisksRESTClient(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	regionDisks, err := compute.NewRegionDisksRESTClient(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	images, err := compute.NewImagesRESTClient(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	routes, err := compute.NewRoutesRESTClient(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disks.Close(); regionDisks.Close(); images.Close(); routes.Close() })

	done(disks.Insert(ctx, &computepb.InsertDiskRequest{Project: project, Zone: zone, DiskResource: &computepb.Disk{Name: proto.String("d"), SizeGb: proto.Int64(20)}}))
	d, err := disks.Get(ctx, &computepb.GetDiskRequest{Project: project, Zone: zone, Disk: "d"})
	if err != nil {
		t.Fatal(err)
	}
	done(disks.SetLabels(ctx, &computepb.SetLabelsDiskRequest{Project: project, Zone: zone, Resource: "d",
		ZoneSetLabelsRequestResource: &computepb.ZoneSetLabelsRequest{Labels: map[string]string{"a": "b"}, LabelFingerprint: d.LabelFingerprint}}))
	done(disks.Resize(ctx, &computepb.ResizeDiskRequest{Project: project, Zone: zone, Disk: "d", DisksResizeRequestResource: &computepb.DisksResizeRequest{SizeGb: proto.Int64(30)}}))
	if d, _ = disks.Get(ctx, &computepb.GetDiskRequest{Project: project, Zone: zone, Disk: "d"}); d.GetSizeGb() != 30 || d.GetLabels()["a"] != "b" {
		t.Errorf("disk after setLabels and resize: %v", d)
	}
	_, err = disks.SetLabels(ctx, &computepb.SetLabelsDiskRequest{Project: project, Zone: zone, Resource: "d",
		ZoneSetLabelsRequestResource: &computepb.ZoneSetLabelsRequest{Labels: map[string]string{}, LabelFingerprint: proto.String("c3RhbGU=")}})
	wantHTTPError(t, err, 412, "conditionNotMet", "Labels fingerprint either invalid or resource labels have changed")

	done(regionDisks.Insert(ctx, &computepb.InsertRegionDiskRequest{Project: project, Region: "us-central1", DiskResource: &computepb.Disk{
		Name: proto.String("rd"), SizeGb: proto.Int64(10), Type: proto.String("regions/us-central1/diskTypes/pd-ssd"),
		ReplicaZones: []string{"zones/us-central1-a", "zones/us-central1-c"}}}))
	rd, err := regionDisks.Get(ctx, &computepb.GetRegionDiskRequest{Project: project, Region: "us-central1", Disk: "rd"})
	if err != nil || len(rd.GetReplicaZones()) != 2 || rd.GetSizeGb() != 10 {
		t.Fatalf("regional disk: %v %v", rd, err)
	}
	done(regionDisks.Delete(ctx, &computepb.DeleteRegionDiskRequest{Project: project, Region: "us-central1", Disk: "rd"}))

	done(images.Insert(ctx, &computepb.InsertImageRequest{Project: project, ImageResource: &computepb.Image{Name: proto.String("img"), SourceDisk: proto.String("zones/" + zone + "/disks/d")}}))
	done(images.Patch(ctx, &computepb.PatchImageRequest{Project: project, Image: "img", ImageResource: &computepb.Image{Family: proto.String("fam")}}))
	img, err := images.GetFromFamily(ctx, &computepb.GetFromFamilyImageRequest{Project: project, Family: "fam"})
	if err != nil || img.GetName() != "img" {
		t.Fatalf("image family after patch: %v %v", img, err)
	}
	done(images.SetLabels(ctx, &computepb.SetLabelsImageRequest{Project: project, Resource: "img",
		GlobalSetLabelsRequestResource: &computepb.GlobalSetLabelsRequest{Labels: map[string]string{"k": "v"}, LabelFingerprint: img.LabelFingerprint}}))

	done(routes.Insert(ctx, &computepb.InsertRouteRequest{Project: project, RouteResource: &computepb.Route{Name: proto.String("r"),
		Network: proto.String("global/networks/net"), DestRange: proto.String("10.50.0.0/16"), NextHopIp: proto.String("10.0.0.9"), Tags: []string{"gpu"}}}))
	rt, err := routes.Get(ctx, &computepb.GetRouteRequest{Project: project, Route: "r"})
	if err != nil || rt.GetPriority() != 1000 || rt.GetTags()[0] != "gpu" {
		t.Fatalf("route: %v %v", rt, err)
	}
	done(routes.Delete(ctx, &computepb.DeleteRouteRequest{Project: project, Route: "r"}))
}
