package compute

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// KindDisks holds persistent disks (projects/P/zones/Z/disks/N), created on their own or with an instance.
const KindDisks = "compute.disks"

// Disk defaults of the API reference: a disk without a type is pd-standard; a blank disk without a size is
// 500 GB, one from an image has the image's size.
const (
	defaultDiskType   = "pd-standard"
	defaultBlankDisk  = 500
	diskBlockSizeByte = 4096
)

func init() { addRoutes(diskRoutes) }

func diskRoutes(s *Service) {
	p := prefix + "/zones/{zone}/disks"
	s.handle("GET "+p, "compute.disks.list", core.Read, func(w http.ResponseWriter, r *http.Request) {
		if z, ok := s.zone(w, r); ok {
			s.list(w, r, "compute#diskList", KindDisks, "projects/"+r.PathValue("project")+"/zones/"+z+"/disks/")
		}
	})
	s.handle("GET "+p+"/{disk}", "compute.disks.get", core.Read, func(w http.ResponseWriter, r *http.Request) {
		if z, ok := s.zone(w, r); ok {
			s.getNamed(w, r, KindDisks, diskKey(r.PathValue("project"), z, r.PathValue("disk")))
		}
	})
	s.handle("POST "+p, "compute.disks.insert", core.Mutating, s.insertDisk)
	s.handle("DELETE "+p+"/{disk}", "compute.disks.delete", core.Mutating, s.deleteDisk)
	s.handle("GET "+prefix+"/aggregated/disks", "compute.disks.aggregatedList", core.Read, func(w http.ResponseWriter, r *http.Request) {
		// Zonal and regional disks, in key order (regions/ sorts before zones/).
		project := r.PathValue("project")
		recs := append(s.Store.List(KindRegionDisks, "projects/"+project+"/regions/"), s.Store.List(KindDisks, "projects/"+project+"/zones/")...)
		s.aggregated(w, r, "compute#diskAggregatedList", "disks", recs, append(regionScopes(), zoneScopes()...))
	})
}

func diskKey(project, zone, name string) string {
	return fmt.Sprintf("projects/%s/zones/%s/disks/%s", project, zone, name)
}

// NewDisk is a disk made from initializeParams: by an instance for its boot and data disks, or by disks.insert.
type NewDisk struct {
	Project, Zone, Name string
	Type                string // disk type name or URL; "" is pd-standard
	SizeGb              int64  // 0: the image's size (or 500 GB for a blank disk)
	Image               *computepb.Image
	Labels              map[string]string
	Architecture        string // for a blank disk
}

// build makes the compute#disk record.
func (d NewDisk) build(id uint64, now, fingerprint string) *computepb.Disk {
	key := diskKey(d.Project, d.Zone, d.Name)
	dt := lastSegment(firstOf(d.Type, defaultDiskType))
	disk := &computepb.Disk{
		Kind:                   proto.String("compute#disk"),
		Id:                     proto.Uint64(id),
		CreationTimestamp:      proto.String(now),
		Name:                   proto.String(d.Name),
		Description:            proto.String(""),
		SizeGb:                 proto.Int64(d.SizeGb),
		Zone:                   proto.String(core.SelfLink(fmt.Sprintf("projects/%s/zones/%s", d.Project, d.Zone))),
		Status:                 proto.String("READY"),
		SelfLink:               proto.String(core.SelfLink(key)),
		Type:                   proto.String(core.SelfLink(fmt.Sprintf("projects/%s/zones/%s/diskTypes/%s", d.Project, d.Zone, dt))),
		LabelFingerprint:       proto.String(fingerprint),
		Labels:                 d.Labels,
		PhysicalBlockSizeBytes: proto.Int64(diskBlockSizeByte),
		Architecture:           proto.String(firstOf(d.Architecture, "X86_64")),
		SatisfiesPzi:           proto.Bool(false),
	}
	if img := d.Image; img != nil {
		disk.SourceImage = proto.String(img.GetSelfLink())
		disk.SourceImageId = proto.String(uintString(img.GetId()))
		disk.Licenses = img.GetLicenses()
		disk.GuestOsFeatures = img.GetGuestOsFeatures()
		disk.Architecture = proto.String(firstOf(img.GetArchitecture(), "X86_64"))
		if d.SizeGb == 0 {
			disk.SizeGb = proto.Int64(img.GetDiskSizeGb())
		}
	} else if d.SizeGb == 0 {
		disk.SizeGb = proto.Int64(defaultBlankDisk)
	}
	return disk
}

// CheckSize refuses, as Compute does, a disk smaller than its source image; field names the size in the
// request.
func (d NewDisk) CheckSize(field string) *core.APIError {
	if d.Image != nil && d.SizeGb != 0 && d.SizeGb < d.Image.GetDiskSizeGb() {
		return core.InvalidField(field, strconv.FormatInt(d.SizeGb, 10),
			fmt.Sprintf("Requested disk size cannot be smaller than the image size (%d GB)", d.Image.GetDiskSizeGb()))
	}
	return nil
}

// DiskSizeGb is the size a new disk gets (what the instance's attachedDisk shows).
func (d NewDisk) DiskSizeGb() int64 { return d.build(0, "", "").GetSizeGb() }

// CreateInstanceDisks stores the disks an instance creates with itself (initializeParams) and adds the instance
// to users[] of the existing disks it attaches (source). A disk of that name that already exists fails as
// Compute does (409).
func (s *Service) CreateInstanceDisks(tx *core.Tx, instSelfLink string, created []NewDisk, attached []string) error {
	now := core.Timestamp(s.Now())
	for _, nd := range created {
		key := diskKey(nd.Project, nd.Zone, nd.Name)
		if tx.Exists(KindDisks, key) {
			return core.OpAlreadyExists(key)
		}
		disk := nd.build(s.Rand.ID(), now, s.newFingerprint())
		disk.Users = []string{instSelfLink}
		disk.LastAttachTimestamp = proto.String(now)
		if err := tx.Put(KindDisks, key, disk); err != nil {
			return err
		}
	}
	for _, src := range attached {
		key := core.RelativePath(src)
		var disk computepb.Disk
		if ok, _ := tx.Get(KindDisks, key, &disk); !ok {
			return core.OpNotFound(key) // checked at plan; gone since
		}
		if !slices.Contains(disk.Users, instSelfLink) {
			disk.Users = append(disk.Users, instSelfLink)
			disk.LastAttachTimestamp = proto.String(now)
			if err := tx.Put(KindDisks, key, &disk); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckAttachable refuses, as Compute does, attaching the disk at key when it does not exist (404) or when
// another VM uses it read-write (400 resourceInUseByAnotherResource); read-only disks can be shared.
func CheckAttachable(st Reader, key, mode string) *core.APIError {
	b, ok := st.GetRaw(KindDisks, key)
	if !ok {
		return core.NotFound(key)
	}
	var disk computepb.Disk
	if core.Decode(b, &disk) == nil && len(disk.GetUsers()) > 0 && mode != "READ_ONLY" {
		return core.ResourceInUse(key, core.RelativePath(disk.GetUsers()[0]))
	}
	return nil
}

// ReleaseInstanceDisks detaches an instance that is going away from its disks: those attached with autoDelete
// are deleted with it, the others lose it from users[].
func (s *Service) ReleaseInstanceDisks(tx *core.Tx, instSelfLink string, disks []*computepb.AttachedDisk) {
	now := core.Timestamp(s.Now())
	for _, ad := range disks {
		if ad.GetType() == "SCRATCH" || ad.GetSource() == "" {
			continue
		}
		key := core.RelativePath(ad.GetSource())
		var disk computepb.Disk
		if ok, _ := tx.Get(KindDisks, key, &disk); !ok {
			continue
		}
		disk.Users = slices.DeleteFunc(disk.Users, func(u string) bool { return u == instSelfLink })
		if ad.GetAutoDelete() && len(disk.Users) == 0 {
			tx.Delete(KindDisks, key)
			continue
		}
		disk.LastDetachTimestamp = proto.String(now)
		_ = tx.Put(KindDisks, key, &disk)
	}
}

func (s *Service) insertDisk(w http.ResponseWriter, r *http.Request) {
	zone, ok := s.zone(w, r)
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
	key := diskKey(project, zone, in.GetName())
	if s.Store.Exists(KindDisks, key) {
		fail(w, r, core.AlreadyExists(key))
		return
	}
	nd := NewDisk{Project: project, Zone: zone, Name: in.GetName(), Type: in.GetType(), SizeGb: in.GetSizeGb(),
		Labels: in.GetLabels(), Architecture: in.GetArchitecture()}
	if ref := in.GetSourceImage(); ref != "" {
		rel, apiErr := ResolveImageRef(project, "resource.sourceImage", ref)
		if apiErr == nil {
			nd.Image, apiErr = LookupImage(s.Store, rel)
		}
		if apiErr != nil {
			fail(w, r, apiErr)
			return
		}
		if e := nd.CheckSize("resource.sizeGb"); e != nil {
			fail(w, r, e)
			return
		}
	}
	disk := nd.build(s.Rand.ID(), core.Timestamp(s.Now()), s.newFingerprint())
	if in.Description != nil {
		disk.Description = in.Description
	}
	op := s.opFor(r, key, "insert", disk.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		if tx.Exists(KindDisks, key) {
			return core.OpAlreadyExists(key)
		}
		return tx.Put(KindDisks, key, disk)
	})
	answerOp(w, op)
}

// deleteDisk refuses a disk an instance uses, synchronously, with Compute's resourceInUseByAnotherResource.
func (s *Service) deleteDisk(w http.ResponseWriter, r *http.Request) {
	zone, ok := s.zone(w, r)
	if !ok {
		return
	}
	key := diskKey(r.PathValue("project"), zone, r.PathValue("disk"))
	var disk computepb.Disk
	if ok, _ := s.Store.Get(KindDisks, key, &disk); !ok {
		fail(w, r, core.NotFound(key))
		return
	}
	if len(disk.GetUsers()) > 0 {
		fail(w, r, core.ResourceInUse(key, core.RelativePath(disk.GetUsers()[0])))
		return
	}
	op := s.opFor(r, key, "delete", disk.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		var cur computepb.Disk
		if ok, _ := tx.Get(KindDisks, key, &cur); !ok {
			return core.OpNotFound(key)
		}
		if len(cur.GetUsers()) > 0 {
			return core.OpResourceInUse(key, core.RelativePath(cur.GetUsers()[0]))
		}
		tx.Delete(KindDisks, key)
		return nil
	})
	answerOp(w, op)
}
