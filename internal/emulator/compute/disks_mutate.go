package compute

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// KindResourcePolicies is where resource policies live (served by the instances package; read here to attach
// them to disks).
const KindResourcePolicies = "compute.resourcePolicies"

const staleLabelFingerprint = "Labels fingerprint either invalid or resource labels have changed"

func init() { addRoutes(diskMutationRoutes) }

// disks setLabels, resize, addResourcePolicies, removeResourcePolicies: each answers a zonal operation and the
// change lands when it is DONE.
func diskMutationRoutes(s *Service) {
	p := prefix + "/zones/{zone}/disks"
	s.handle("POST "+p+"/{disk}/setLabels", "compute.disks.setLabels", core.Mutating, s.setDiskLabels)
	s.handle("POST "+p+"/{disk}/resize", "compute.disks.resize", core.Mutating, s.resizeDisk)
	s.handle("POST "+p+"/{disk}/addResourcePolicies", "compute.disks.addResourcePolicies", core.Mutating, s.addDiskPolicies)
	s.handle("POST "+p+"/{disk}/removeResourcePolicies", "compute.disks.removeResourcePolicies", core.Mutating, s.removeDiskPolicies)
}

// diskFor loads the disk a request names, answering 404 itself.
func (s *Service) diskFor(w http.ResponseWriter, r *http.Request) (string, *computepb.Disk, bool) {
	zone, ok := s.zone(w, r)
	if !ok {
		return "", nil, false
	}
	key := diskKey(r.PathValue("project"), zone, r.PathValue("disk"))
	var disk computepb.Disk
	if ok, _ := s.Store.Get(KindDisks, key, &disk); !ok {
		fail(w, r, core.NotFound(key))
		return "", nil, false
	}
	return key, &disk, true
}

// diskOp runs change on the stored disk inside the operation's transaction.
func (s *Service) diskOp(r *http.Request, key, opType string, id uint64, change func(d *computepb.Disk) error) *computepb.Operation {
	return s.opFor(r, key, opType, id, func(tx *core.Tx, _ *computepb.Operation) error {
		var d computepb.Disk
		if ok, _ := tx.Get(KindDisks, key, &d); !ok {
			return core.OpNotFound(key)
		}
		if err := change(&d); err != nil {
			return err
		}
		return tx.Put(KindDisks, key, &d)
	})
}

func (s *Service) setDiskLabels(w http.ResponseWriter, r *http.Request) {
	var req computepb.ZoneSetLabelsRequest
	if !decode(w, r, &req) {
		return
	}
	key, disk, ok := s.diskFor(w, r)
	if !ok {
		return
	}
	current := disk.GetLabelFingerprint()
	if req.GetLabelFingerprint() != current {
		fail(w, r, core.ConditionNotMet(staleLabelFingerprint))
		return
	}
	if err := catalog.ValidateLabels(req.GetLabels()); err != nil {
		fail(w, r, core.Invalid(fmt.Sprintf("Invalid value for field 'labels': %v", err)))
		return
	}
	op := s.diskOp(r, key, "setLabels", disk.GetId(), func(d *computepb.Disk) error {
		if d.GetLabelFingerprint() != current {
			return core.NewOpError(412, "CONDITION_NOT_MET", staleLabelFingerprint)
		}
		d.Labels = req.GetLabels()
		d.LabelFingerprint = proto.String(s.newFingerprint())
		return nil
	})
	answerOp(w, op)
}

// resizeDisk only grows a disk.
func (s *Service) resizeDisk(w http.ResponseWriter, r *http.Request) {
	var req computepb.DisksResizeRequest
	if !decode(w, r, &req) {
		return
	}
	key, disk, ok := s.diskFor(w, r)
	if !ok {
		return
	}
	if req.SizeGb == nil {
		fail(w, r, core.Required("sizeGb"))
		return
	}
	size := req.GetSizeGb()
	if size <= disk.GetSizeGb() {
		fail(w, r, core.InvalidField("sizeGb", strconv.FormatInt(size, 10),
			fmt.Sprintf("Disk size cannot be decreased or kept: the requested size must be larger than the current size (%d GB).", disk.GetSizeGb())))
		return
	}
	op := s.opFor(r, key, "resize", disk.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		var d computepb.Disk
		if ok, _ := tx.Get(KindDisks, key, &d); !ok {
			return core.OpNotFound(key)
		}
		if size <= d.GetSizeGb() {
			return core.NewOpError(400, "INVALID_FIELD_VALUE", fmt.Sprintf("Invalid value for field 'sizeGb': '%d'. The requested size must be larger than the current size (%d GB).", size, d.GetSizeGb()))
		}
		d.SizeGb = proto.Int64(size)
		// The VMs that use the disk show its new size in their disks[].diskSizeGb.
		for _, user := range d.GetUsers() {
			ik := core.RelativePath(user)
			var inst computepb.Instance
			if ok, _ := tx.Get(kindInstances, ik, &inst); !ok {
				continue
			}
			for _, ad := range inst.GetDisks() {
				if core.RelativePath(ad.GetSource()) == key {
					ad.DiskSizeGb = proto.Int64(size)
				}
			}
			if err := tx.Put(kindInstances, ik, &inst); err != nil {
				return err
			}
		}
		return tx.Put(KindDisks, key, &d)
	})
	answerOp(w, op)
}

// policyLinks resolves resource policy references for a disk in zone: each must exist in the zone's region.
func (s *Service) policyLinks(project, zone string, refs []string) ([]string, *core.APIError) {
	if len(refs) == 0 {
		return nil, core.Required("resourcePolicies")
	}
	region, _ := catalog.RegionOf(zone)
	out := make([]string, 0, len(refs))
	for i, ref := range refs {
		key := resolveRef(project, "regions/"+region, "resourcePolicies", ref)
		if _, _, r := scopeParts(key); r != region {
			return nil, core.InvalidField(fmt.Sprintf("resourcePolicies[%d]", i), ref, fmt.Sprintf("Resource policy must be in region '%s', the disk's region.", region))
		}
		var pol computepb.ResourcePolicy
		if ok, _ := s.Store.Get(KindResourcePolicies, key, &pol); !ok {
			return nil, core.NotFound(key)
		}
		// Disks take snapshot schedules and consistency groups; placement and instance schedules are for VMs.
		if pol.SnapshotSchedulePolicy == nil && pol.DiskConsistencyGroupPolicy == nil {
			return nil, core.InvalidField(fmt.Sprintf("resourcePolicies[%d]", i), ref, "Only snapshot schedule and disk consistency group policies can be attached to a disk.")
		}
		out = append(out, core.SelfLink(key))
	}
	return out, nil
}

func (s *Service) addDiskPolicies(w http.ResponseWriter, r *http.Request) {
	var req computepb.DisksAddResourcePoliciesRequest
	if !decode(w, r, &req) {
		return
	}
	key, disk, ok := s.diskFor(w, r)
	if !ok {
		return
	}
	project, zone, _ := scopeParts(key)
	links, apiErr := s.policyLinks(project, zone, req.GetResourcePolicies())
	if apiErr != nil {
		fail(w, r, apiErr)
		return
	}
	for _, l := range links {
		if slices.Contains(disk.GetResourcePolicies(), l) {
			fail(w, r, core.InvalidField("resourcePolicies", l, "The resource policy is already attached to the disk."))
			return
		}
	}
	op := s.diskOp(r, key, "addResourcePolicies", disk.GetId(), func(d *computepb.Disk) error {
		for _, l := range links {
			if !slices.Contains(d.ResourcePolicies, l) {
				d.ResourcePolicies = append(d.ResourcePolicies, l)
			}
		}
		return nil
	})
	answerOp(w, op)
}

func (s *Service) removeDiskPolicies(w http.ResponseWriter, r *http.Request) {
	var req computepb.DisksRemoveResourcePoliciesRequest
	if !decode(w, r, &req) {
		return
	}
	key, disk, ok := s.diskFor(w, r)
	if !ok {
		return
	}
	project, zone, _ := scopeParts(key)
	region, _ := catalog.RegionOf(zone)
	if len(req.GetResourcePolicies()) == 0 {
		fail(w, r, core.Required("resourcePolicies"))
		return
	}
	links := make([]string, 0, len(req.GetResourcePolicies()))
	for i, ref := range req.GetResourcePolicies() {
		l := core.SelfLink(resolveRef(project, "regions/"+region, "resourcePolicies", ref))
		if !slices.Contains(disk.GetResourcePolicies(), l) {
			fail(w, r, core.InvalidField(fmt.Sprintf("resourcePolicies[%d]", i), ref, "The resource policy is not attached to the disk."))
			return
		}
		links = append(links, l)
	}
	op := s.diskOp(r, key, "removeResourcePolicies", disk.GetId(), func(d *computepb.Disk) error {
		d.ResourcePolicies = slices.DeleteFunc(d.ResourcePolicies, func(l string) bool { return slices.Contains(links, l) })
		return nil
	})
	answerOp(w, op)
}
