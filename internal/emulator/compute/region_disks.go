package compute

import (
	"fmt"
	"net/http"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// KindRegionDisks holds regional persistent disks (projects/P/regions/R/disks/N): a disk replicated in two
// zones of its region (replicaZones).
const KindRegionDisks = "compute.regionDisks"

func init() { addRoutes(regionDiskRoutes) }

func regionDiskRoutes(s *Service) {
	p := prefix + "/regions/{region}/disks"
	s.handle("GET "+p, "compute.regionDisks.list", core.Read, func(w http.ResponseWriter, r *http.Request) {
		if reg, ok := s.region(w, r); ok {
			s.list(w, r, "compute#diskList", KindRegionDisks, "projects/"+r.PathValue("project")+"/regions/"+reg+"/disks/")
		}
	})
	s.handle("GET "+p+"/{disk}", "compute.regionDisks.get", core.Read, func(w http.ResponseWriter, r *http.Request) {
		if reg, ok := s.region(w, r); ok {
			s.getNamed(w, r, KindRegionDisks, regionDiskKey(r.PathValue("project"), reg, r.PathValue("disk")))
		}
	})
	s.handle("POST "+p, "compute.regionDisks.insert", core.Mutating, s.insertRegionDisk)
	s.handle("DELETE "+p+"/{disk}", "compute.regionDisks.delete", core.Mutating, s.deleteRegionDisk)
}

func regionDiskKey(project, region, name string) string {
	return fmt.Sprintf("projects/%s/regions/%s/disks/%s", project, region, name)
}

// replicaZones checks a regional disk's two replica zones: distinct zones of region.
func replicaZones(project, region string, refs []string) ([]string, *core.APIError) {
	if len(refs) != 2 {
		return nil, core.InvalidField("resource.replicaZones", fmt.Sprint(len(refs)), "A regional disk needs exactly two replica zones.")
	}
	out := make([]string, 2)
	for i, ref := range refs {
		z := lastSegment(ref)
		if zr, ok := catalog.RegionOf(z); !ok || zr != region {
			return nil, core.InvalidField(fmt.Sprintf("resource.replicaZones[%d]", i), ref, fmt.Sprintf("Replica zones must be zones of region '%s'.", region))
		}
		out[i] = core.SelfLink(fmt.Sprintf("projects/%s/zones/%s", project, z))
	}
	if out[0] == out[1] {
		return nil, core.InvalidField("resource.replicaZones[1]", refs[1], "The two replica zones must differ.")
	}
	return out, nil
}

func (s *Service) insertRegionDisk(w http.ResponseWriter, r *http.Request) {
	region, ok := s.region(w, r)
	if !ok {
		return
	}
	project := r.PathValue("project")
	var in computepb.Disk
	if !decode(w, r, &in) {
		return
	}
	if e := core.ValidateName("resource.name", in.GetName()); e != nil {
		fail(w, r, e)
		return
	}
	key := regionDiskKey(project, region, in.GetName())
	if s.Store.Exists(KindRegionDisks, key) {
		fail(w, r, core.AlreadyExists(key))
		return
	}
	zones, apiErr := replicaZones(project, region, in.GetReplicaZones())
	if apiErr != nil {
		fail(w, r, apiErr)
		return
	}
	nd := NewDisk{Project: project, Zone: lastSegment(zones[0]), Name: in.GetName(), Type: in.GetType(), SizeGb: in.GetSizeGb(),
		Labels: in.GetLabels(), Architecture: in.GetArchitecture()}
	if ref := in.GetSourceImage(); ref != "" {
		rel, apiErr := ResolveImageRef(project, "resource.sourceImage", ref)
		if apiErr == nil {
			nd.Image, apiErr = LookupImage(s.Store, rel)
		}
		if apiErr == nil {
			apiErr = nd.CheckSize("resource.sizeGb")
		}
		if apiErr != nil {
			fail(w, r, apiErr)
			return
		}
	}
	disk := nd.build(s.Rand.ID(), core.Timestamp(s.Now()), s.newFingerprint())
	// Regional pd-standard disks start at 200 GB, the SSD-backed types at 10 GB (Compute's minimums).
	dt := lastSegment(firstOf(in.GetType(), defaultDiskType))
	minGb := int64(10)
	if dt == "pd-standard" {
		minGb = 200
	}
	if disk.GetSizeGb() < minGb {
		fail(w, r, core.InvalidField("resource.sizeGb", fmt.Sprint(disk.GetSizeGb()), fmt.Sprintf("Regional %s disks must be at least %d GB.", dt, minGb)))
		return
	}
	disk.Zone = nil
	disk.Region = proto.String(core.SelfLink(fmt.Sprintf("projects/%s/regions/%s", project, region)))
	disk.ReplicaZones = zones
	disk.Type = proto.String(core.SelfLink(fmt.Sprintf("projects/%s/regions/%s/diskTypes/%s", project, region, dt)))
	disk.SelfLink = proto.String(core.SelfLink(key))
	if in.Description != nil {
		disk.Description = in.Description
	}
	answerOp(w, s.opFor(r, key, "insert", disk.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		if tx.Exists(KindRegionDisks, key) {
			return core.OpAlreadyExists(key)
		}
		return tx.Put(KindRegionDisks, key, disk)
	}))
}

func (s *Service) deleteRegionDisk(w http.ResponseWriter, r *http.Request) {
	region, ok := s.region(w, r)
	if !ok {
		return
	}
	key := regionDiskKey(r.PathValue("project"), region, r.PathValue("disk"))
	var disk computepb.Disk
	if ok, _ := s.Store.Get(KindRegionDisks, key, &disk); !ok {
		fail(w, r, core.NotFound(key))
		return
	}
	if len(disk.GetUsers()) > 0 {
		fail(w, r, core.ResourceInUse(key, core.RelativePath(disk.GetUsers()[0])))
		return
	}
	answerOp(w, s.opFor(r, key, "delete", disk.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		if !tx.Delete(KindRegionDisks, key) {
			return core.OpNotFound(key)
		}
		return nil
	}))
}
