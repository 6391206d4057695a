package compute

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"sort"
	"sync"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Zones, regions, machine types, accelerator types and network profiles are read-only views of
// internal/catalog, built per request (they are small) rather than stored.

func init() { addRoutes(catalogRoutes) }

func catalogRoutes(s *Service) {
	s.handle("GET "+prefix+"/zones", "compute.zones.list", core.Read, s.listZones)
	s.handle("GET "+prefix+"/zones/{zone}", "compute.zones.get", core.Read, func(w http.ResponseWriter, r *http.Request) {
		if z, ok := s.zone(w, r); ok {
			core.WriteJSON(w, http.StatusOK, zoneResource(r.PathValue("project"), z))
		}
	})
	s.handle("GET "+prefix+"/regions", "compute.regions.list", core.Read, s.listRegions)
	s.handle("GET "+prefix+"/regions/{region}", "compute.regions.get", core.Read, func(w http.ResponseWriter, r *http.Request) {
		if reg, ok := s.region(w, r); ok {
			core.WriteJSON(w, http.StatusOK, s.regionResource(r.PathValue("project"), reg))
		}
	})
	s.handle("GET "+prefix+"/zones/{zone}/machineTypes", "compute.machineTypes.list", core.Read, s.listMachineTypes)
	s.handle("GET "+prefix+"/zones/{zone}/machineTypes/{machineType}", "compute.machineTypes.get", core.Read, s.getMachineType)
	s.handle("GET "+prefix+"/aggregated/machineTypes", "compute.machineTypes.aggregatedList", core.Read, s.aggregatedMachineTypes)
	s.handle("GET "+prefix+"/zones/{zone}/acceleratorTypes", "compute.acceleratorTypes.list", core.Read, s.listAcceleratorTypes)
	s.handle("GET "+prefix+"/zones/{zone}/acceleratorTypes/{acceleratorType}", "compute.acceleratorTypes.get", core.Read, s.getAcceleratorType)
	s.handle("GET "+prefix+"/global/networkProfiles", "compute.networkProfiles.list", core.Read, s.listNetworkProfiles)
	s.handle("GET "+prefix+"/global/networkProfiles/{networkProfile}", "compute.networkProfiles.get", core.Read, s.getNetworkProfile)
}

// catalogID gives catalog resources stable ids across runs.
func catalogID(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return 1_000_000_000_000_000_000 + h.Sum64()%8_000_000_000_000_000_000
}

// catalogCreated is the creationTimestamp Google reports for zones and regions.
const catalogCreated = "1969-12-31T16:00:00.000-08:00"

// asRecords encodes catalog views so list calls share the store's paging and filtering (which needs records in
// key order: page tokens are the last key served).
func asRecords(keys []string, msgs []proto.Message) []core.Record {
	out := make([]core.Record, 0, len(msgs))
	for i, m := range msgs {
		b, err := core.Encode(m)
		if err == nil {
			out = append(out, core.Record{Key: keys[i], JSON: b})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func (s *Service) writeCatalogList(w http.ResponseWriter, r *http.Request, listKind, collection string, keys []string, msgs []proto.Message) {
	items, next, err := core.Page(r, asRecords(keys, msgs))
	if err != nil {
		fail(w, r, err)
		return
	}
	core.WriteJSON(w, http.StatusOK, listBody(listKind, collection, items, next))
}

func zoneResource(project, zone string) *computepb.Zone {
	z, _ := catalog.Zone(zone)
	return &computepb.Zone{
		Kind:              proto.String("compute#zone"),
		Id:                proto.Uint64(catalogID(z.Name)),
		CreationTimestamp: proto.String(catalogCreated),
		Name:              proto.String(z.Name),
		Description:       proto.String(z.Name),
		Status:            proto.String("UP"),
		Region:            proto.String(core.SelfLink("projects/" + project + "/regions/" + z.Region)),
		SelfLink:          proto.String(core.SelfLink("projects/" + project + "/zones/" + z.Name)),
		SupportsPzs:       proto.Bool(false),
	}
}

func (s *Service) listZones(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	var keys []string
	var msgs []proto.Message
	for _, z := range catalog.Zones() {
		keys = append(keys, z.Name)
		msgs = append(msgs, zoneResource(project, z.Name))
	}
	s.writeCatalogList(w, r, "compute#zoneList", "projects/"+project+"/zones", keys, msgs)
}

// unlimitedQuota is the limit regions report for metrics no quota fault limits.
const unlimitedQuota = 1e6

func (s *Service) regionResource(project, region string) *computepb.Region {
	reg := &computepb.Region{
		Kind:              proto.String("compute#region"),
		Id:                proto.Uint64(catalogID(region)),
		CreationTimestamp: proto.String(catalogCreated),
		Name:              proto.String(region),
		Description:       proto.String(region),
		Status:            proto.String("UP"),
		SelfLink:          proto.String(core.SelfLink("projects/" + project + "/regions/" + region)),
		SupportsPzs:       proto.Bool(false),
	}
	for _, z := range catalog.ZonesInRegion(region) {
		reg.Zones = append(reg.Zones, core.SelfLink("projects/"+project+"/zones/"+z.Name))
	}
	seen := map[string]bool{}
	add := func(q core.Quota) {
		limit := q.Limit
		if limit < 0 {
			limit = unlimitedQuota
		}
		reg.Quotas = append(reg.Quotas, &computepb.Quota{Metric: proto.String(q.Metric), Limit: proto.Float64(limit), Usage: proto.Float64(q.Usage)})
		seen[q.Metric] = true
	}
	for _, m := range catalog.QuotaMetricNames() {
		add(s.Quotas.Get(region, m))
	}
	for _, q := range s.Quotas.List(region) {
		if !seen[q.Metric] {
			add(q)
		}
	}
	return reg
}

func (s *Service) listRegions(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	var keys []string
	var msgs []proto.Message
	for _, reg := range catalog.Regions() {
		keys = append(keys, reg)
		msgs = append(msgs, s.regionResource(project, reg))
	}
	s.writeCatalogList(w, r, "compute#regionList", "projects/"+project+"/regions", keys, msgs)
}

func machineTypeResource(project, zone string, m catalog.MachineType) *computepb.MachineType {
	mt := &computepb.MachineType{
		Kind:                         proto.String("compute#machineType"),
		Id:                           proto.Uint64(catalogID(m.Name)),
		CreationTimestamp:            proto.String(catalogCreated),
		Name:                         proto.String(m.Name),
		Description:                  proto.String(m.Description()),
		GuestCpus:                    proto.Int32(int32(m.CPUs)),
		MemoryMb:                     proto.Int32(int32(m.MemoryMB)),
		ImageSpaceGb:                 proto.Int32(int32(m.ImageSpaceGB())),
		MaximumPersistentDisks:       proto.Int32(int32(max(m.MaxPersistentDisks, 1))),
		MaximumPersistentDisksSizeGb: proto.Int64(int64(m.DiskCapacityLimitGB())),
		Zone:                         proto.String(zone),
		SelfLink:                     proto.String(core.SelfLink("projects/" + project + "/zones/" + zone + "/machineTypes/" + m.Name)),
		IsSharedCpu:                  proto.Bool(m.SharedCPU),
	}
	// The API's Architecture enum (X86_64, ARM64), not the catalog's lower-case image/Slurm spelling.
	switch m.Arch {
	case catalog.ArchX86:
		mt.Architecture = proto.String("X86_64")
	case catalog.ArchARM:
		mt.Architecture = proto.String("ARM64")
	}
	if m.HasGPU() {
		mt.Accelerators = []*computepb.Accelerators{{
			GuestAcceleratorType:  proto.String(m.GPU.Type),
			GuestAcceleratorCount: proto.Int32(int32(m.GPU.Count)),
		}}
	}
	return mt
}

func zoneMachineTypes(project, zone string) ([]string, []proto.Message) {
	z, _ := catalog.Zone(zone)
	var keys []string
	var msgs []proto.Message
	for _, name := range z.MachineTypeNames() {
		m, _ := catalog.Machine(name)
		keys = append(keys, "projects/"+project+"/zones/"+zone+"/machineTypes/"+name)
		msgs = append(msgs, machineTypeResource(project, zone, m))
	}
	return keys, msgs
}

func (s *Service) listMachineTypes(w http.ResponseWriter, r *http.Request) {
	zone, ok := s.zone(w, r)
	if !ok {
		return
	}
	project := r.PathValue("project")
	keys, msgs := zoneMachineTypes(project, zone)
	s.writeCatalogList(w, r, "compute#machineTypeList", "projects/"+project+"/zones/"+zone+"/machineTypes", keys, msgs)
}

func (s *Service) getMachineType(w http.ResponseWriter, r *http.Request) {
	zone, ok := s.zone(w, r)
	if !ok {
		return
	}
	project, name := r.PathValue("project"), r.PathValue("machineType")
	z, _ := catalog.Zone(zone)
	m, known := catalog.Machine(name)
	if !known || !z.Offers(name) {
		fail(w, r, core.NotFound("projects/"+project+"/zones/"+zone+"/machineTypes/"+name))
		return
	}
	core.WriteJSON(w, http.StatusOK, machineTypeResource(project, zone, m))
}

func (s *Service) aggregatedMachineTypes(w http.ResponseWriter, r *http.Request) {
	s.aggregated(w, r, "compute#machineTypeAggregatedList", "machineTypes", allMachineTypeRecords(r.PathValue("project")), zoneScopes())
}

// machineTypeRecords caches, per project, the encoded machine types of every zone (tens of thousands: every
// public zone times its series), because aggregatedList pages through them 500 at a time and encoding them all
// for each page made a full listing take half a minute. The catalog never changes while the emulator runs.
var machineTypeRecords struct {
	sync.Mutex
	byProject map[string][]core.Record
}

// machineTypeCacheProjects bounds the cache; an emulator serves a handful of projects.
const machineTypeCacheProjects = 16

func allMachineTypeRecords(project string) []core.Record {
	c := &machineTypeRecords
	c.Lock()
	recs, ok := c.byProject[project]
	c.Unlock()
	if ok {
		return recs
	}
	var keys []string
	var msgs []proto.Message
	for _, z := range catalog.Zones() {
		k, m := zoneMachineTypes(project, z.Name)
		keys = append(keys, k...)
		msgs = append(msgs, m...)
	}
	recs = asRecords(keys, msgs)
	c.Lock()
	if c.byProject == nil || len(c.byProject) >= machineTypeCacheProjects {
		c.byProject = map[string][]core.Record{}
	}
	c.byProject[project] = recs
	c.Unlock()
	return recs
}

func acceleratorTypeResource(project, zone string, a catalog.AcceleratorType) *computepb.AcceleratorType {
	return &computepb.AcceleratorType{
		Kind:                    proto.String("compute#acceleratorType"),
		Id:                      proto.Uint64(catalogID(a.Name)),
		CreationTimestamp:       proto.String(catalogCreated),
		Name:                    proto.String(a.Name),
		Description:             proto.String(a.Description),
		Zone:                    proto.String(core.SelfLink("projects/" + project + "/zones/" + zone)),
		SelfLink:                proto.String(core.SelfLink("projects/" + project + "/zones/" + zone + "/acceleratorTypes/" + a.Name)),
		MaximumCardsPerInstance: proto.Int32(int32(a.MaximumCardsPerInstance)),
	}
}

func zoneAccelerators(zone string) []catalog.AcceleratorType {
	z, _ := catalog.Zone(zone)
	offered := map[string]bool{}
	for _, g := range z.GPUTypes {
		offered[g] = true
	}
	var out []catalog.AcceleratorType
	for _, a := range catalog.AcceleratorTypes() {
		if offered[a.Name] {
			out = append(out, a)
		}
	}
	return out
}

func (s *Service) listAcceleratorTypes(w http.ResponseWriter, r *http.Request) {
	zone, ok := s.zone(w, r)
	if !ok {
		return
	}
	project := r.PathValue("project")
	var keys []string
	var msgs []proto.Message
	for _, a := range zoneAccelerators(zone) {
		keys = append(keys, a.Name)
		msgs = append(msgs, acceleratorTypeResource(project, zone, a))
	}
	s.writeCatalogList(w, r, "compute#acceleratorTypeList", "projects/"+project+"/zones/"+zone+"/acceleratorTypes", keys, msgs)
}

func (s *Service) getAcceleratorType(w http.ResponseWriter, r *http.Request) {
	zone, ok := s.zone(w, r)
	if !ok {
		return
	}
	project, name := r.PathValue("project"), r.PathValue("acceleratorType")
	for _, a := range zoneAccelerators(zone) {
		if a.Name == name {
			core.WriteJSON(w, http.StatusOK, acceleratorTypeResource(project, zone, a))
			return
		}
	}
	fail(w, r, core.NotFound("projects/"+project+"/zones/"+zone+"/acceleratorTypes/"+name))
}

func networkProfileResource(p networkProfileInfo) json.RawMessage {
	np := &computepb.NetworkProfile{
		Kind:              proto.String("compute#networkProfile"),
		Id:                proto.Uint64(catalogID(p.name)),
		CreationTimestamp: proto.String(catalogCreated),
		Name:              proto.String(p.name),
		Description:       proto.String("RDMA over Converged Ethernet (RoCE) network profile for zone " + p.zone),
		SelfLink:          proto.String(core.SelfLink(p.key)),
		Location:          &computepb.NetworkProfileLocation{Name: proto.String(p.zone), Scope: proto.String("ZONE")},
		Features: &computepb.NetworkProfileNetworkFeatures{
			InterfaceTypes:             []string{"MRDMA"},
			AllowAutoModeSubnet:        proto.String("AUTO_MODE_SUBNET_BLOCKED"),
			AllowCloudNat:              proto.String("CLOUD_NAT_BLOCKED"),
			AllowCloudRouter:           proto.String("CLOUD_ROUTER_BLOCKED"),
			AllowVpcPeering:            proto.String("VPC_PEERING_BLOCKED"),
			AllowMultiNicInSameNetwork: proto.String("MULTI_NIC_IN_SAME_NETWORK_ALLOWED"),
			SubnetPurposes:             []string{"SUBNET_PURPOSE_PRIVATE"},
			SubnetStackTypes:           []string{"SUBNET_STACK_TYPE_IPV4_ONLY"},
		},
	}
	b, _ := core.Encode(np)
	return b
}

func (s *Service) listNetworkProfiles(w http.ResponseWriter, r *http.Request) {
	var recs []core.Record
	for _, p := range networkProfiles(r.PathValue("project")) {
		recs = append(recs, core.Record{Key: p.key, JSON: networkProfileResource(p)})
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Key < recs[j].Key })
	items, next, err := core.Page(r, recs)
	if err != nil {
		fail(w, r, err)
		return
	}
	core.WriteJSON(w, http.StatusOK, listBody("compute#networkProfileList", "projects/"+r.PathValue("project")+"/global/networkProfiles", items, next))
}

func (s *Service) getNetworkProfile(w http.ResponseWriter, r *http.Request) {
	project, name := r.PathValue("project"), r.PathValue("networkProfile")
	p, ok := networkProfile(project, name)
	if !ok {
		fail(w, r, core.NotFound("projects/"+project+"/global/networkProfiles/"+name))
		return
	}
	core.WriteJSON(w, http.StatusOK, networkProfileResource(p))
}
