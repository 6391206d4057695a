package instances

import (
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Instance status values.
const (
	statusProvisioning = "PROVISIONING"
	statusStaging      = "STAGING"
	statusRunning      = "RUNNING"
	statusStopping     = "STOPPING"
	statusTerminated   = "TERMINATED"
	statusPending      = "PENDING"
)

// Scheduling values.
const (
	modelStandard    = "STANDARD"
	modelSpot        = "SPOT"
	modelFlexStart   = "FLEX_START"
	modelReservation = "RESERVATION_BOUND"

	anyReservation      = "ANY_RESERVATION"
	noReservation       = "NO_RESERVATION"
	specificReservation = "SPECIFIC_RESERVATION"
	reservationNameKey  = "compute.googleapis.com/reservation-name"

	minFlexRun = 30 * time.Second
	maxFlexRun = 7 * 24 * time.Hour
)

// plan is a validated instance description, independent of the instance's name, so bulkInsert validates once and
// stamps out many VMs.
type plan struct {
	project, zone, region string
	proto                 *computepb.Instance
	mt                    catalog.MachineType
	nics                  []nicPlan
	disks                 []diskPlan
}

type nicPlan struct {
	subnet, cidr, ip string // ip: requested address ("" = allocate)
}

type diskPlan struct {
	derive bool   // source is projects/P/zones/Z/disks/<instance name><suffix>
	suffix string // "" for the boot disk
	// create is the compute#disk the instance makes from initializeParams (its Name is set per instance); nil
	// for an attached existing disk and for local SSDs.
	create *compute.NewDisk
}

// machineTypeName extracts the machine type name from a URL, a partial path or a bare name, and the zone the
// reference names ("" for a bare name).
func machineTypeName(ref string) (name, zone string) {
	rel := core.RelativePath(ref)
	parts := strings.Split(rel, "/")
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == "zones" {
			zone = parts[i+1]
		}
	}
	return parts[len(parts)-1], zone
}

// resolveMachineType validates a machine type reference for zone against the catalog.
func resolveMachineType(field, ref, zone string) (catalog.MachineType, *core.APIError) {
	if ref == "" {
		return catalog.MachineType{}, core.Required(field)
	}
	name, refZone := machineTypeName(ref)
	if refZone != "" && refZone != zone {
		return catalog.MachineType{}, core.InvalidField(field, ref, fmt.Sprintf("Machine type zone '%s' does not match the instance zone '%s'.", refZone, zone))
	}
	mt, ok := catalog.Machine(name)
	z, zok := catalog.Zone(zone)
	if !ok || !zok || !z.Offers(name) {
		return catalog.MachineType{}, core.InvalidField(field, ref, fmt.Sprintf("Machine type with name '%s' does not exist in zone '%s'.", name, zone))
	}
	return mt, nil
}

// plan validates inst (as sent, or merged from a template) for project/zone and fills every server-owned field
// that does not depend on the instance's name. field is the request path of the instance ("resource", or
// "resource.instanceProperties" for bulkInsert).
func (s *Service) plan(project, zone string, inst *computepb.Instance, field string) (*plan, *core.APIError) {
	region, _ := catalog.RegionOf(zone)
	p := &plan{project: project, zone: zone, region: region}
	mt, err := resolveMachineType(field+".machineType", inst.GetMachineType(), zone)
	if err != nil {
		return nil, err
	}
	p.mt = mt
	out := proto.Clone(inst).(*computepb.Instance)
	out.Kind = proto.String("compute#instance")
	out.Zone = proto.String(core.SelfLink(fmt.Sprintf("projects/%s/zones/%s", project, zone)))
	out.MachineType = proto.String(core.SelfLink(fmt.Sprintf("projects/%s/zones/%s/machineTypes/%s", project, zone, mt.Name)))
	out.Status = nil
	out.StatusMessage = nil
	out.Id = nil
	out.SelfLink = nil
	out.CreationTimestamp = nil
	out.ResourceStatus = nil
	out.LastStartTimestamp, out.LastStopTimestamp = nil, nil
	out.CpuPlatform = proto.String(cpuPlatform(mt))
	if out.DeletionProtection == nil {
		out.DeletionProtection = proto.Bool(false)
	}
	if out.CanIpForward == nil {
		out.CanIpForward = proto.Bool(false)
	}
	out.StartRestricted = proto.Bool(false)
	if h := out.GetHostname(); h != "" {
		if err := validateHostname(field+".hostname", h); err != nil {
			return nil, err
		}
	}

	if err := validateMetadata(field+".metadata", out.GetMetadata()); err != nil {
		return nil, err
	}
	out.Metadata = s.normalizeMetadata(out.Metadata)
	if err := validateLabels(field+".labels", out.GetLabels()); err != nil {
		return nil, err
	}
	out.LabelFingerprint = proto.String(s.randomFingerprint())
	if out.Tags == nil {
		out.Tags = &computepb.Tags{}
	}
	out.Tags.Fingerprint = proto.String(s.randomFingerprint())

	if err := s.planDisks(p, out, field); err != nil {
		return nil, err
	}
	if err := s.planNICs(p, out, field); err != nil {
		return nil, err
	}
	if err := s.planAccelerators(p, out, field); err != nil {
		return nil, err
	}
	collocated, err := s.planPolicies(p, out, field)
	if err != nil {
		return nil, err
	}
	if err := s.planScheduling(p, out, field, collocated); err != nil {
		return nil, err
	}
	if err := s.planReservation(p, out, field); err != nil {
		return nil, err
	}
	planIdentity(p, out)
	out.Fingerprint = proto.String(s.randomFingerprint())
	// Every VM shows tags.fingerprint, with or without items: setTags must send it back.
	if out.Tags == nil {
		out.Tags = &computepb.Tags{}
	}
	out.Tags.Fingerprint = proto.String(s.randomFingerprint())
	p.proto = out
	return p, nil
}

func cpuPlatform(mt catalog.MachineType) string {
	switch mt.Family {
	case "a3", "c3":
		return "Intel Sapphire Rapids"
	case "a4":
		return "Intel Emerald Rapids"
	case "a4x":
		return "NVIDIA Grace"
	case "c2", "n2", "g2":
		return "Intel Cascade Lake"
	case "e2":
		return "AMD Rome"
	}
	return "Intel Broadwell"
}

func (s *Service) planAccelerators(p *plan, out *computepb.Instance, field string) *core.APIError {
	acc := out.GetGuestAccelerators()
	if !p.mt.HasGPU() {
		if len(acc) > 0 {
			return core.InvalidField(field+".guestAccelerators[0].acceleratorType", acc[0].GetAcceleratorType(),
				fmt.Sprintf("Machine type '%s' does not support attaching accelerators.", p.mt.Name))
		}
		return nil
	}
	for i, a := range acc {
		name := lastSegment(a.GetAcceleratorType())
		if name != p.mt.GPU.Type || int(a.GetAcceleratorCount()) != p.mt.GPU.Count {
			return core.InvalidField(fmt.Sprintf("%s.guestAccelerators[%d]", field, i), fmt.Sprintf("%d x %s", a.GetAcceleratorCount(), name),
				fmt.Sprintf("Machine type '%s' comes with %d %s accelerators attached.", p.mt.Name, p.mt.GPU.Count, p.mt.GPU.Type))
		}
	}
	out.GuestAccelerators = []*computepb.AcceleratorConfig{{
		AcceleratorCount: proto.Int32(int32(p.mt.GPU.Count)),
		AcceleratorType:  proto.String(core.SelfLink(fmt.Sprintf("projects/%s/zones/%s/acceleratorTypes/%s", p.project, p.zone, p.mt.GPU.Type))),
	}}
	return nil
}

// planPolicies resolves resource policies (which must exist in the instance's region) and reports whether one is
// a compact (COLLOCATED) placement policy.
func (s *Service) planPolicies(p *plan, out *computepb.Instance, field string) (collocated bool, err *core.APIError) {
	for i, ref := range out.GetResourcePolicies() {
		key := resolveRef(p.project, "regions/"+p.region, "resourcePolicies", ref)
		var pol computepb.ResourcePolicy
		if ok, _ := s.Store.Get(KindResourcePolicies, key, &pol); !ok {
			return false, core.NotFound(key)
		}
		if _, _, r := scopePartsOf(key); r != p.region {
			return false, core.InvalidField(fmt.Sprintf("%s.resourcePolicies[%d]", field, i), ref, fmt.Sprintf("Resource policy must be in region '%s', the instance's region.", p.region))
		}
		if pol.GetGroupPlacementPolicy().GetCollocation() == "COLLOCATED" {
			if p.mt.Placement.Mode == catalog.PlacementNone {
				return false, core.InvalidField(fmt.Sprintf("%s.resourcePolicies[%d]", field, i), ref,
					fmt.Sprintf("Compact placement policies are not supported for machine type '%s'.", p.mt.Name))
			}
			collocated = true
		}
		out.ResourcePolicies[i] = core.SelfLink(key)
	}
	return collocated, nil
}

func planIdentity(p *plan, out *computepb.Instance) {
	for _, sa := range out.GetServiceAccounts() {
		if sa.GetEmail() == "" || sa.GetEmail() == "default" {
			sa.Email = proto.String(defaultServiceAccount(p.project))
		}
	}
	if out.ShieldedInstanceConfig == nil {
		out.ShieldedInstanceConfig = &computepb.ShieldedInstanceConfig{EnableSecureBoot: proto.Bool(false), EnableVtpm: proto.Bool(true), EnableIntegrityMonitoring: proto.Bool(true)}
	}
	if out.ShieldedInstanceIntegrityPolicy == nil {
		out.ShieldedInstanceIntegrityPolicy = &computepb.ShieldedInstanceIntegrityPolicy{UpdateAutoLearnPolicy: proto.Bool(true)}
	}
}

// DefaultServiceAccount is the project's Compute Engine default service account.
func defaultServiceAccount(project string) string {
	return core.ProjectNumber(project) + "-compute@developer.gserviceaccount.com"
}

// instantiate stamps out one VM of the plan: its name, id and the fields derived from them.
func (s *Service) instantiate(p *plan, name string, hostname string) *computepb.Instance {
	inst := proto.Clone(p.proto).(*computepb.Instance)
	key := InstanceKey(p.project, p.zone, name)
	inst.Name = proto.String(name)
	inst.Id = proto.Uint64(s.Rand.ID())
	inst.SelfLink = proto.String(core.SelfLink(key))
	inst.CreationTimestamp = proto.String(core.Timestamp(s.Now()))
	inst.Status = proto.String(statusProvisioning)
	if hostname != "" {
		inst.Hostname = proto.String(hostname)
	}
	for i, d := range p.disks {
		if d.derive {
			inst.Disks[i].Source = proto.String(core.SelfLink(fmt.Sprintf("projects/%s/zones/%s/disks/%s%s", p.project, p.zone, name, d.suffix)))
		}
	}
	for i, n := range inst.NetworkInterfaces {
		for j, ac := range n.AccessConfigs {
			if ac.NatIP == nil {
				ac.NatIP = proto.String(externalIP(inst.GetId(), i*8+j))
			}
		}
	}
	return inst
}
