package instances

import (
	"fmt"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

func diskInterface(mt catalog.MachineType) string {
	switch mt.Family {
	case "a3", "a4", "a4x", "c3", "g2":
		return "NVME"
	}
	return "SCSI"
}

func (s *Service) planDisks(p *plan, out *computepb.Instance, field string) *core.APIError {
	if len(out.GetDisks()) == 0 {
		return core.InvalidField(field+".disks", "", "At least one disk, the boot disk, must be attached to the instance.")
	}
	arch := "X86_64"
	if p.mt.Arch == catalog.ArchARM {
		arch = "ARM64"
	}
	bootSeen := false
	p.disks = make([]diskPlan, len(out.Disks))
	for i, d := range out.Disks {
		f := fmt.Sprintf("%s.disks[%d]", field, i)
		scratch := d.GetType() == "SCRATCH" || strings.Contains(d.GetInitializeParams().GetDiskType(), "local-ssd")
		if d.GetBoot() {
			if i != 0 {
				return core.InvalidField(f+".boot", "true", "The boot disk must be the first disk attached to the instance.")
			}
			bootSeen = true
		}
		if d.GetSource() == "" && d.InitializeParams == nil {
			return core.InvalidField(f, "", "A disk needs either 'source' or 'initializeParams'.")
		}
		if d.DeviceName == nil {
			if i == 0 {
				d.DeviceName = proto.String("persistent-disk-0")
			} else {
				d.DeviceName = proto.String(fmt.Sprintf("persistent-disk-%d", i))
			}
			if scratch {
				d.DeviceName = proto.String(fmt.Sprintf("local-ssd-%d", i))
			}
		}
		d.Kind = proto.String("compute#attachedDisk")
		d.Index = proto.Int32(int32(i))
		if d.Mode == nil {
			d.Mode = proto.String("READ_WRITE")
		}
		if scratch {
			d.Type = proto.String("SCRATCH")
		} else if d.Type == nil {
			d.Type = proto.String("PERSISTENT")
		}
		if d.Interface == nil {
			d.Interface = proto.String(diskInterface(p.mt))
		}
		if d.Architecture == nil && i == 0 {
			d.Architecture = proto.String(arch)
		}
		if d.InitializeParams != nil {
			ip := d.InitializeParams
			if i == 0 && ip.GetSourceImage() == "" && ip.GetSourceSnapshot() == "" {
				return core.InvalidField(f+".initializeParams.sourceImage", "", "The boot disk needs a source image or snapshot.")
			}
			size := ip.GetDiskSizeGb()
			var create *compute.NewDisk
			if !scratch {
				nd, err := s.newDisk(p, ip, f)
				if err != nil {
					return err
				}
				create, size = nd, nd.DiskSizeGb()
			} else if size == 0 {
				size = 375
			}
			d.DiskSizeGb = proto.Int64(size)
			if d.AutoDelete == nil {
				d.AutoDelete = proto.Bool(true)
			}
			switch {
			case scratch:
				p.disks[i] = diskPlan{derive: true, suffix: "-" + d.GetDeviceName()}
			case ip.GetDiskName() != "":
				d.Source = proto.String(core.SelfLink(fmt.Sprintf("projects/%s/zones/%s/disks/%s", p.project, p.zone, ip.GetDiskName())))
				p.disks[i] = diskPlan{create: create}
			case i == 0:
				p.disks[i] = diskPlan{derive: true, create: create}
			default:
				p.disks[i] = diskPlan{derive: true, suffix: "-" + d.GetDeviceName(), create: create}
			}
			d.InitializeParams = nil // GET never shows how a disk was created
		} else {
			src := resolveRef(p.project, "zones/"+p.zone, "disks", d.GetSource())
			if err := compute.CheckAttachable(s.Store, src, d.GetMode()); err != nil {
				return err
			}
			d.Source = proto.String(core.SelfLink(src))
			if d.AutoDelete == nil {
				d.AutoDelete = proto.Bool(false)
			}
		}
	}
	if !bootSeen {
		out.Disks[0].Boot = proto.Bool(true)
	}
	return nil
}

// newDisk describes the persistent disk initializeParams ask for; a source image that does not resolve fails
// as Compute does (404 for a missing image or family, 400 for a malformed reference).
func (s *Service) newDisk(p *plan, ip *computepb.AttachedDiskInitializeParams, field string) (*compute.NewDisk, *core.APIError) {
	nd := &compute.NewDisk{Project: p.project, Zone: p.zone, Type: ip.GetDiskType(), SizeGb: ip.GetDiskSizeGb(), Labels: ip.GetLabels()}
	if p.mt.Arch == catalog.ArchARM {
		nd.Architecture = "ARM64"
	}
	if ref := ip.GetSourceImage(); ref != "" {
		img, err := resolveImage(s.Store, p.project, field+".initializeParams.sourceImage", ref)
		if err != nil {
			return nil, err
		}
		nd.Image = img
	}
	if err := nd.CheckSize(field + ".initializeParams.diskSizeGb"); err != nil {
		return nil, err
	}
	return nd, nil
}

func resolveImage(st compute.Reader, project, field, ref string) (*computepb.Image, *core.APIError) {
	rel, err := compute.ResolveImageRef(project, field, ref)
	if err != nil {
		return nil, err
	}
	return compute.LookupImage(st, rel)
}

// attachDisks is the boot-disk hook: it stores the compute#disk records of a VM being created (boot and data
// disks made from initializeParams) and adds the VM to users[] of the disks it attaches.
func (s *Service) attachDisks(tx *core.Tx, p *plan, inst *computepb.Instance) error {
	c, _ := s.Component("compute").(*compute.Service)
	if c == nil {
		return nil
	}
	var created []compute.NewDisk
	var attached []string
	for i, d := range p.disks {
		switch {
		case d.create != nil:
			nd := *d.create
			nd.Name = lastSegment(inst.Disks[i].GetSource())
			created = append(created, nd)
		case inst.Disks[i].GetType() != "SCRATCH":
			attached = append(attached, inst.Disks[i].GetSource())
		}
	}
	return c.CreateInstanceDisks(tx, inst.GetSelfLink(), created, attached)
}

// detachDisks releases the disks of a VM that goes away, honouring each disk's autoDelete.
func (s *Service) detachDisks(tx *core.Tx, key string) {
	c, _ := s.Component("compute").(*compute.Service)
	var inst computepb.Instance
	if c == nil {
		return
	}
	if ok, _ := tx.Get(KindInstances, key, &inst); ok {
		c.ReleaseInstanceDisks(tx, inst.GetSelfLink(), inst.GetDisks())
	}
}
