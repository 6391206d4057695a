package instances

import (
	"fmt"
	"net/http"
	"slices"
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

var nicTypes = []string{"GVNIC", "IDPF", "IRDMA", "MRDMA", "VIRTIO_NET"}

func (s *Service) planNICs(p *plan, out *computepb.Instance, field string) *core.APIError {
	if len(out.GetNetworkInterfaces()) == 0 {
		out.NetworkInterfaces = []*computepb.NetworkInterface{{Network: proto.String("global/networks/default")}}
	}
	if len(out.NetworkInterfaces) > 16 {
		return core.InvalidField(field+".networkInterfaces", "", "An instance can have at most 16 network interfaces.")
	}
	p.nics = make([]nicPlan, len(out.NetworkInterfaces))
	seenNet := map[string]bool{}
	for i, n := range out.NetworkInterfaces {
		f := fmt.Sprintf("%s.networkInterfaces[%d]", field, i)
		netKey, subKey, sub, err := s.resolveNIC(p, n, f)
		if err != nil {
			return err
		}
		var network computepb.Network
		_, _ = s.Store.Get(compute.KindNetworks, netKey, &network)
		rdma := strings.HasSuffix(network.GetNetworkProfile(), "-vpc-roce")
		// One interface per network — except on an RDMA (vpc-roce) network, where A3 Ultra, A4
		// and A4X attach one MRDMA NIC per subnet of the same network.
		switch {
		case rdma && seenNet[subKey]:
			return core.InvalidField(f+".subnetwork", core.SelfLink(subKey), "Each RDMA network interface of an instance must be in a different subnetwork.")
		case !rdma && seenNet[netKey]:
			return core.InvalidField(f+".network", core.SelfLink(netKey), "Each network interface of an instance must be in a different network.")
		}
		seenNet[netKey], seenNet[subKey] = true, true
		if t := n.GetNicType(); t != "" && !slices.Contains(nicTypes, t) {
			return core.InvalidField(f+".nicType", t, "Must be one of "+strings.Join(nicTypes, ", ")+".")
		}
		if rdma {
			if n.GetNicType() != "MRDMA" && n.GetNicType() != "IRDMA" {
				return core.InvalidField(f+".nicType", n.GetNicType(), fmt.Sprintf("Network '%s' uses the RDMA network profile; only MRDMA or IRDMA network interfaces can attach to it.", core.SelfLink(netKey)))
			}
			if prof := lastSegment(network.GetNetworkProfile()); !strings.HasPrefix(prof, p.zone+"-") {
				return core.InvalidField(f+".network", core.SelfLink(netKey), fmt.Sprintf("Network profile '%s' restricts the network to another zone than '%s'.", prof, p.zone))
			}
		} else if n.GetNicType() == "MRDMA" || n.GetNicType() == "IRDMA" {
			return core.InvalidField(f+".nicType", n.GetNicType(), fmt.Sprintf("RDMA network interfaces attach only to networks with an RDMA network profile; '%s' has none.", core.SelfLink(netKey)))
		}
		n.Kind = proto.String("compute#networkInterface")
		n.Name = proto.String(fmt.Sprintf("nic%d", i))
		n.Network = proto.String(core.SelfLink(netKey))
		n.Subnetwork = proto.String(core.SelfLink(subKey))
		n.Fingerprint = proto.String(s.randomFingerprint())
		if n.StackType == nil {
			n.StackType = proto.String("IPV4_ONLY")
		}
		for j, ac := range n.AccessConfigs {
			if t := ac.GetType(); t != "" && t != "ONE_TO_ONE_NAT" {
				return core.InvalidField(fmt.Sprintf("%s.accessConfigs[%d].type", f, j), t, "Must be ONE_TO_ONE_NAT.")
			}
			ac.Kind = proto.String("compute#accessConfig")
			ac.Type = proto.String("ONE_TO_ONE_NAT")
			if ac.Name == nil {
				ac.Name = proto.String("External NAT")
			}
			if ac.NetworkTier == nil {
				ac.NetworkTier = proto.String("PREMIUM")
			}
		}
		p.nics[i] = nicPlan{subnet: subKey, cidr: sub.GetIpCidrRange(), ip: n.GetNetworkIP()}
		n.NetworkIP = nil
	}
	return nil
}

// resolveNIC finds the network and subnetwork a network interface attaches to, answering Compute's errors.
func (s *Service) resolveNIC(p *plan, n *computepb.NetworkInterface, f string) (netKey, subKey string, sub *computepb.Subnetwork, err *core.APIError) {
	sub = &computepb.Subnetwork{}
	if n.GetSubnetwork() != "" {
		subKey = resolveRef(p.project, "regions/"+p.region, "subnetworks", n.GetSubnetwork())
		if ok, _ := s.Store.Get(compute.KindSubnetworks, subKey, sub); !ok {
			return "", "", nil, core.NotFound(subKey)
		}
		_, _, subRegion := scopePartsOf(subKey)
		if subRegion != p.region {
			return "", "", nil, core.InvalidField(f+".subnetwork", n.GetSubnetwork(), fmt.Sprintf("Subnetwork must be in region '%s', the instance's region.", p.region))
		}
		netKey = core.RelativePath(sub.GetNetwork())
		if n.GetNetwork() != "" && resolveRef(p.project, "global", "networks", n.GetNetwork()) != netKey {
			return "", "", nil, core.InvalidField(f+".network", n.GetNetwork(), "The subnetwork does not belong to this network.")
		}
		if !s.Store.Exists(compute.KindNetworks, netKey) {
			return "", "", nil, core.NotFound(netKey)
		}
		return netKey, subKey, sub, nil
	}
	netKey = resolveRef(p.project, "global", "networks", n.GetNetwork())
	var network computepb.Network
	if ok, _ := s.Store.Get(compute.KindNetworks, netKey, &network); !ok {
		return "", "", nil, core.NotFound(netKey)
	}
	if !network.GetAutoCreateSubnetworks() {
		return "", "", nil, core.InvalidField(f+".subnetwork", "", "Subnetwork should be specified for custom subnetmode network")
	}
	netProject, _, _ := scopePartsOf(netKey)
	for _, rec := range s.Store.List(compute.KindSubnetworks, fmt.Sprintf("projects/%s/regions/%s/", netProject, p.region)) {
		var cand computepb.Subnetwork
		if rec.Decode(&cand) == nil && core.RelativePath(cand.GetNetwork()) == netKey {
			return netKey, rec.Key, &cand, nil
		}
	}
	return "", "", nil, core.InvalidField(f+".network", n.GetNetwork(), fmt.Sprintf("The network has no subnetwork in region '%s'.", p.region))
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

// assignIPs gives every interface of inst its address (requested or allocated). list reads static address
// reservations (the store, or the open transaction inside an operation). On failure nothing stays allocated.
func (s *Service) assignIPs(p *plan, key string, inst *computepb.Instance, list func(kind, prefix string) []core.Record, field string) *core.APIError {
	done := 0
	undo := func() {
		for i := 0; i < done; i++ {
			s.ipam.release(p.nics[i].subnet, inst.NetworkInterfaces[i].GetNetworkIP(), key)
		}
	}
	for i, n := range p.nics {
		skip := staticReservations(list, n.subnet)
		if n.ip != "" {
			if err := s.ipam.claim(n.subnet, n.cidr, n.ip, key, skip); err != nil {
				undo()
				return core.InvalidField(fmt.Sprintf("%s.networkInterfaces[%d].networkIP", field, i), n.ip, fmt.Sprintf("IP address is %s.", err.Error()))
			}
			inst.NetworkInterfaces[i].NetworkIP = proto.String(n.ip)
		} else {
			ip, err := s.ipam.allocate(n.subnet, n.cidr, key, skip)
			if err != nil {
				undo()
				return &core.APIError{Code: http.StatusBadRequest, Reason: "ipSpaceExhausted",
					Message: fmt.Sprintf("IP space of '%s' is exhausted.", core.SelfLink(n.subnet))}
			}
			inst.NetworkInterfaces[i].NetworkIP = proto.String(ip)
		}
		done++
	}
	return nil
}

// releaseIPs frees the addresses assignIPs gave inst.
func (s *Service) releaseIPs(p *plan, key string, inst *computepb.Instance) {
	for i, n := range p.nics {
		if i < len(inst.NetworkInterfaces) {
			s.ipam.release(n.subnet, inst.NetworkInterfaces[i].GetNetworkIP(), key)
		}
	}
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
