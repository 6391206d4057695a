package instances

import (
	"fmt"
	"net/http"
	"slices"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// attachDisk and detachDisk: the disk's users[] and the VM's disks[] change together in the operation's
// transaction, so a disk is never shown attached to a VM that does not list it.

func (s *Service) attachDisk(w http.ResponseWriter, r *http.Request) {
	ad := &computepb.AttachedDisk{}
	if _, err := readBody(r, ad); err != nil {
		fail(w, r, err)
		return
	}
	key, inst, ok := s.instanceFor(w, r)
	if !ok {
		return
	}
	project, zone, _, _ := ParseInstanceKey(key)
	if ad.GetSource() == "" {
		fail(w, r, core.Required("resource.source"))
		return
	}
	if m := ad.GetMode(); m != "" && m != "READ_WRITE" && m != "READ_ONLY" {
		fail(w, r, core.InvalidField("resource.mode", m, "Must be READ_WRITE or READ_ONLY."))
		return
	}
	src := resolveRef(project, "zones/"+zone, "disks", ad.GetSource())
	if err := compute.CheckAttachable(s.Store, src, ad.GetMode()); err != nil {
		fail(w, r, err)
		return
	}
	if ad.DeviceName == nil {
		ad.DeviceName = proto.String(freeDeviceName(inst.GetDisks()))
	}
	for _, d := range inst.GetDisks() {
		if d.GetDeviceName() == ad.GetDeviceName() {
			fail(w, r, core.InvalidField("resource.deviceName", ad.GetDeviceName(), "Device name is already in use by another disk of the instance."))
			return
		}
	}
	ad.Kind = proto.String("compute#attachedDisk")
	ad.Source = proto.String(core.SelfLink(src))
	ad.Type = proto.String("PERSISTENT")
	ad.Boot = proto.Bool(false)
	if ad.Mode == nil {
		ad.Mode = proto.String("READ_WRITE")
	}
	if ad.AutoDelete == nil {
		ad.AutoDelete = proto.Bool(false)
	}
	if ad.Interface == nil {
		name, _ := machineTypeName(inst.GetMachineType())
		mt, _ := catalog.Machine(name)
		ad.Interface = proto.String(diskInterface(mt))
	}
	c, _ := s.Component("compute").(*compute.Service)
	op := s.mutateOp(r, key, "attachDisk", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		var disk computepb.Disk
		if ok, _ := tx.Get(compute.KindDisks, src, &disk); !ok {
			return core.OpNotFound(src)
		}
		if len(disk.GetUsers()) > 0 && ad.GetMode() != "READ_ONLY" {
			return core.OpResourceInUse(src, core.RelativePath(disk.GetUsers()[0]))
		}
		ad.DiskSizeGb = proto.Int64(disk.GetSizeGb())
		ad.Index = proto.Int32(int32(len(inst.GetDisks())))
		inst.Disks = append(inst.Disks, ad)
		if c != nil {
			return c.CreateInstanceDisks(tx, inst.GetSelfLink(), nil, []string{src})
		}
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}

// freeDeviceName is the name Compute gives a disk attached without one: persistent-disk-N, N the first unused.
func freeDeviceName(disks []*computepb.AttachedDisk) string {
	for n := 0; ; n++ {
		name := fmt.Sprintf("persistent-disk-%d", n)
		if !slices.ContainsFunc(disks, func(d *computepb.AttachedDisk) bool { return d.GetDeviceName() == name }) {
			return name
		}
	}
}

func (s *Service) detachDisk(w http.ResponseWriter, r *http.Request) {
	device := r.URL.Query().Get("deviceName")
	if device == "" {
		fail(w, r, core.Required("deviceName"))
		return
	}
	key, inst, ok := s.instanceFor(w, r)
	if !ok {
		return
	}
	i := slices.IndexFunc(inst.GetDisks(), func(d *computepb.AttachedDisk) bool { return d.GetDeviceName() == device })
	if i < 0 {
		fail(w, r, core.InvalidField("deviceName", device, "No attached disk found with the given device name."))
		return
	}
	if inst.GetDisks()[i].GetBoot() && inst.GetStatus() != statusTerminated {
		fail(w, r, core.BadRequest("invalidResourceUsage", "Invalid resource usage: 'The boot disk can only be detached from a stopped instance.'."))
		return
	}
	c, _ := s.Component("compute").(*compute.Service)
	op := s.mutateOp(r, key, "detachDisk", inst.GetId(), func(tx *core.Tx, inst *computepb.Instance) error {
		j := slices.IndexFunc(inst.GetDisks(), func(d *computepb.AttachedDisk) bool { return d.GetDeviceName() == device })
		if j < 0 {
			return core.NewOpError(400, "INVALID_FIELD_VALUE", fmt.Sprintf("Invalid value for field 'deviceName': '%s'. No attached disk found with the given device name.", device))
		}
		gone := inst.Disks[j]
		inst.Disks = slices.Delete(inst.Disks, j, j+1)
		for n, d := range inst.Disks {
			d.Index = proto.Int32(int32(n))
		}
		if c != nil {
			// Detaching never deletes the disk, whatever its autoDelete says.
			kept := proto.Clone(gone).(*computepb.AttachedDisk)
			kept.AutoDelete = proto.Bool(false)
			c.ReleaseInstanceDisks(tx, inst.GetSelfLink(), []*computepb.AttachedDisk{kept})
		}
		return nil
	}, nil)
	core.WriteJSON(w, http.StatusOK, op)
}
