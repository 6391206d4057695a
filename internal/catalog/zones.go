package catalog

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// ZoneInfo is one Compute Engine zone and the hardware it offers. (The type
// cannot be called Zone: that name is the lookup function's.)
type ZoneInfo struct {
	Name   string // e.g. us-central1-a
	Region string // e.g. us-central1
	// Families are the machine families offered (general purpose and GPU).
	Families []string
	// GPUTypes are the accelerator types offered (e.g. nvidia-h100-80gb).
	GPUTypes []string
	// HasRDMAProfile: the zone has the <zone>-vpc-roce network profile, which
	// RDMA machine types (A3 Ultra, A4, A4X) need.
	HasRDMAProfile bool
}

// Offers reports whether VMs of the named machine type can be created in
// the zone.
func (z ZoneInfo) Offers(machineType string) bool {
	m, ok := Machine(machineType)
	if !ok || !slices.Contains(z.Families, m.Family) {
		return false
	}
	if m.HasGPU() && !slices.Contains(z.GPUTypes, m.GPU.Type) {
		return false
	}
	if m.NICStack == NICRDMA && !z.HasRDMAProfile {
		return false
	}
	return true
}

// MachineTypeNames lists the machine types the zone offers, sorted.
func (z ZoneInfo) MachineTypeNames() []string {
	var out []string
	for _, m := range machineList {
		if z.Offers(m.Name) {
			out = append(out, m.Name)
		}
	}
	return out
}

// NetworkProfile returns the zone's RDMA network profile name, or "" when
// the zone has none.
func (z ZoneInfo) NetworkProfile() string {
	if !z.HasRDMAProfile {
		return ""
	}
	return RDMANetworkProfile(z.Name)
}

func (z ZoneInfo) clone() ZoneInfo {
	z.Families = slices.Clone(z.Families)
	z.GPUTypes = slices.Clone(z.GPUTypes)
	return z
}

// Which zones offer which GPUs is an approximation of Google's public "GPU
// regions and zones" table at the time of writing; availability changes often and real capacity also depends on
// reservations. General-purpose families are likewise approximate. GPU
// families and RDMA profiles are derived from the GPU types, so a zone with
// A3 Ultra/A4/A4X GPUs always has the vpc-roce profile.
const (
	h100     = "nvidia-h100-80gb"
	h100Mega = "nvidia-h100-mega-80gb"
	h200     = "nvidia-h200-141gb"
	b200     = "nvidia-b200"
	gb200    = "nvidia-gb200"
	l4       = "nvidia-l4"
	a100     = "nvidia-tesla-a100"
	a100x80  = "nvidia-a100-80gb"
	rtxPro   = "nvidia-rtx-pro-6000"
)

var (
	gpFull = []string{"c2", "c2d", "c3", "c3d", "c4", "e2", "n1", "n2", "n2d", "t2d"}
	gpNoC2 = []string{"c3", "c3d", "c4", "e2", "n1", "n2", "n2d", "t2d"}
	// gpHPC adds the HPC series (H3, H4D), offered in few zones.
	gpHPC = append(slices.Clone(gpFull), "h3", "h4d")
)

var zoneTable = []struct {
	name    string
	general []string
	gpus    []string
}{
	{"us-central1-a", gpHPC, []string{a100, a100x80, h100, h100Mega, gb200, l4}},
	{"us-central1-b", gpHPC, []string{a100, h200, b200, l4, rtxPro}},
	{"us-central1-c", gpFull, []string{a100, a100x80, h100, h100Mega, l4}},
	{"us-central1-f", gpFull, nil},
	{"us-east1-b", gpFull, []string{b200, l4}},
	{"us-east1-c", gpFull, []string{l4}},
	{"us-east1-d", gpFull, []string{l4}},
	{"us-east4-a", gpFull, []string{h100, h100Mega, l4}},
	{"us-east4-b", gpFull, []string{h100Mega, h200}},
	{"us-east4-c", gpFull, []string{a100x80, l4}},
	{"us-east5-a", gpNoC2, []string{h100, h100Mega}},
	{"us-east5-b", gpNoC2, []string{a100x80, l4}},
	{"us-west1-a", gpFull, []string{h100, h100Mega, l4}},
	{"us-west1-b", gpFull, []string{a100, l4}},
	{"us-west4-a", gpFull, []string{h100, l4}},
	{"us-west4-b", gpFull, nil},
	{"europe-west1-b", gpFull, []string{h100Mega, h200, l4}},
	{"europe-west1-c", gpFull, []string{h100Mega, l4}},
	{"europe-west1-d", gpFull, nil},
	{"europe-west4-a", gpFull, []string{a100, a100x80, l4, rtxPro}},
	{"europe-west4-b", gpHPC, []string{a100, h100, h100Mega, b200, l4}},
	{"europe-west4-c", gpFull, []string{h100, h100Mega, l4}},
	{"asia-northeast1-a", gpFull, []string{a100, l4}},
	{"asia-northeast1-b", gpFull, []string{h100, h100Mega, b200, l4}},
	{"asia-northeast1-c", gpFull, []string{l4}},
	{"asia-southeast1-b", gpFull, []string{h100, h100Mega, h200, l4}},
	{"asia-southeast1-c", gpFull, []string{a100x80, h100, h100Mega, l4}},
}

// cpuOnlyZones completes zoneTable to every public region and zone (the regions an auto-mode network gets a
// subnet in, as recorded from a real project): zones listed here offer no GPU type in this catalog and take
// gpBasic, an approximation of the general-purpose series every region has.
var cpuOnlyZones = map[string][]string{
	"africa-south1":           {"a", "b", "c"},
	"asia-east1":              {"a", "b", "c"},
	"asia-east2":              {"a", "b", "c"},
	"asia-northeast2":         {"a", "b", "c"},
	"asia-northeast3":         {"a", "b", "c"},
	"asia-south1":             {"a", "b", "c"},
	"asia-south2":             {"a", "b", "c"},
	"asia-southeast1":         {"a"},
	"asia-southeast2":         {"a", "b", "c"},
	"australia-southeast1":    {"a", "b", "c"},
	"australia-southeast2":    {"a", "b", "c"},
	"europe-central2":         {"a", "b", "c"},
	"europe-north1":           {"a", "b", "c"},
	"europe-north2":           {"a", "b", "c"},
	"europe-southwest1":       {"a", "b", "c"},
	"europe-west2":            {"a", "b", "c"},
	"europe-west3":            {"a", "b", "c"},
	"europe-west6":            {"a", "b", "c"},
	"europe-west8":            {"a", "b", "c"},
	"europe-west9":            {"a", "b", "c"},
	"europe-west10":           {"a", "b", "c"},
	"europe-west12":           {"a", "b", "c"},
	"me-central1":             {"a", "b", "c"},
	"me-west1":                {"a", "b", "c"},
	"northamerica-northeast1": {"a", "b", "c"},
	"northamerica-northeast2": {"a", "b", "c"},
	"northamerica-south1":     {"a", "b", "c"},
	"southamerica-east1":      {"a", "b", "c"},
	"southamerica-west1":      {"a", "b", "c"},
	"us-east5":                {"c"},
	"us-south1":               {"a", "b", "c"},
	"us-west1":                {"c"},
	"us-west2":                {"a", "b", "c"},
	"us-west3":                {"a", "b", "c"},
	"us-west4":                {"c"},
}

// gpBasic: the general-purpose series of a zone without GPUs in this catalog.
var gpBasic = []string{"c3", "e2", "n1", "n2", "n2d"}

// allZoneRows is zoneTable plus cpuOnlyZones.
func allZoneRows() []struct {
	name    string
	general []string
	gpus    []string
} {
	rows := slices.Clone(zoneTable)
	for region, suffixes := range cpuOnlyZones {
		for _, sfx := range suffixes {
			rows = append(rows, struct {
				name    string
				general []string
				gpus    []string
			}{region + "-" + sfx, gpBasic, nil})
		}
	}
	return rows
}

var (
	zoneList  = buildZones()
	zoneIndex = indexZones(zoneList)
)

func buildZones() []ZoneInfo {
	gpuFamily := map[string]string{}
	rdmaGPU := map[string]bool{}
	for _, m := range machineList {
		if m.HasGPU() {
			gpuFamily[m.GPU.Type] = m.Family
			if m.NICStack == NICRDMA {
				rdmaGPU[m.GPU.Type] = true
			}
		}
	}
	rows := allZoneRows()
	out := make([]ZoneInfo, 0, len(rows))
	seen := map[string]bool{}
	for _, row := range rows {
		if seen[row.name] {
			panic("catalog: zone " + row.name + " listed twice")
		}
		seen[row.name] = true
		region, ok := regionOfZoneName(row.name)
		if !ok {
			panic("catalog: malformed zone name " + row.name)
		}
		z := ZoneInfo{Name: row.name, Region: region, GPUTypes: slices.Clone(row.gpus)}
		fams := slices.Clone(row.general)
		for _, g := range row.gpus {
			fam, ok := gpuFamily[g]
			if !ok {
				panic("catalog: zone " + row.name + " lists GPU type " + g + " that no machine type has")
			}
			if !slices.Contains(fams, fam) {
				fams = append(fams, fam)
			}
			if rdmaGPU[g] {
				z.HasRDMAProfile = true
			}
		}
		sort.Strings(fams)
		sort.Strings(z.GPUTypes)
		z.Families = fams
		out = append(out, z)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func indexZones(list []ZoneInfo) map[string]int {
	idx := make(map[string]int, len(list))
	for i, z := range list {
		idx[z.Name] = i
	}
	return idx
}

// regionOfZoneName cuts the zone suffix: us-central1-a → us-central1.
func regionOfZoneName(zone string) (string, bool) {
	i := strings.LastIndex(zone, "-")
	if i <= 0 || i == len(zone)-1 {
		return "", false
	}
	return zone[:i], true
}

// Zones returns every zone in the catalog, sorted by name.
func Zones() []ZoneInfo {
	out := make([]ZoneInfo, len(zoneList))
	for i, z := range zoneList {
		out[i] = z.clone()
	}
	return out
}

// Zone looks a zone up by name.
func Zone(name string) (ZoneInfo, bool) {
	i, ok := zoneIndex[name]
	if !ok {
		return ZoneInfo{}, false
	}
	return zoneList[i].clone(), true
}

// ZoneByName is Zone under the name the storage lookups use.
func ZoneByName(name string) (ZoneInfo, bool) { return Zone(name) }

// ZoneNames returns every zone name, sorted.
func ZoneNames() []string {
	out := make([]string, len(zoneList))
	for i, z := range zoneList {
		out[i] = z.Name
	}
	return out
}

// Regions returns the regions of the catalog's zones, sorted.
func Regions() []string {
	var out []string
	for _, z := range zoneList {
		if !slices.Contains(out, z.Region) {
			out = append(out, z.Region)
		}
	}
	sort.Strings(out)
	return out
}

// ZonesInRegion returns the catalog's zones of one region, sorted.
func ZonesInRegion(region string) []ZoneInfo {
	var out []ZoneInfo
	for _, z := range zoneList {
		if z.Region == region {
			out = append(out, z.clone())
		}
	}
	return out
}

// RegionOf returns the region of a known zone.
func RegionOf(zone string) (string, bool) {
	i, ok := zoneIndex[zone]
	if !ok {
		return "", false
	}
	return zoneList[i].Region, true
}

// IsRegion reports whether a region is in the catalog.
func IsRegion(region string) bool { return slices.Contains(Regions(), region) }

// ValidateZone returns a user-facing error for an unknown zone.
func ValidateZone(zone string) error {
	if _, ok := zoneIndex[zone]; ok {
		return nil
	}
	if r, ok := regionOfZoneName(zone); ok && IsRegion(r) {
		var names []string
		for _, z := range ZonesInRegion(r) {
			names = append(names, z.Name)
		}
		return fmt.Errorf("zone %q is not known; zones of region %s: %s", zone, r, strings.Join(names, ", "))
	}
	if IsRegion(zone) {
		return fmt.Errorf("%q is a region, not a zone; use one of its zones, e.g. %s-a or %s-b", zone, zone, zone)
	}
	return fmt.Errorf("zone %q is not known (zones look like us-central1-a)", zone)
}

// ValidateMachineInZone returns a user-facing error when a machine type is
// unknown or not offered in a zone, naming zones that offer it.
func ValidateMachineInZone(machineType, zone string) error {
	if err := ValidateMachineType(machineType); err != nil {
		return err
	}
	z, ok := Zone(zone)
	if !ok {
		return ValidateZone(zone)
	}
	if z.Offers(machineType) {
		return nil
	}
	where := ZonesOffering(machineType)
	if len(where) == 0 {
		return fmt.Errorf("machine type %s is not offered in zone %s, nor in any other zone", machineType, zone)
	}
	return fmt.Errorf("machine type %s is not offered in zone %s; zones that offer it: %s",
		machineType, zone, strings.Join(where, ", "))
}

// ZonesOffering lists the zones that offer a machine type, sorted.
func ZonesOffering(machineType string) []string {
	var out []string
	for _, z := range zoneList {
		if z.Offers(machineType) {
			out = append(out, z.Name)
		}
	}
	return out
}
