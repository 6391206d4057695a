package catalog

import (
	"fmt"
	"regexp"
	"strings"
)

// FilestoreTier holds the rules of one Filestore service tier. Capacities
// are in Filestore's GB, which are GiB (capacityGb counts 1024^3 bytes), so
// 1 TiB = 1024 GB.
type FilestoreTier struct {
	Name  string // API enum name, e.g. ZONAL
	Basic bool   // BASIC_HDD / BASIC_SSD
	MinGB int64
	MaxGB int64
	// Steps are the valid capacity ranges, in order.
	Steps []CapacityStep
	// CanShrink: capacity may be decreased in place (Basic tiers only grow).
	CanShrink bool
	// ShareNameMax is the longest file share name.
	ShareNameMax int
	// DirectPeeringPrefix is the prefix length a DIRECT_PEERING
	// reservedIpRange must have (a /29 for Basic).
	DirectPeeringPrefix int
	// Regional: the instance's location is a region, not a zone.
	Regional bool
	// Legacy: still accepted by the API but not offered for new designs.
	Legacy bool
	// NFSv41: the tier offers protocol NFS_V4_1 (every tier offers NFS_V3).
	// gcp-apis.md lists the protocol field only; the tiers are Filestore's
	// public support matrix.
	NFSv41 bool
}

// StepGB is the smallest capacity step of the tier (output
// capacityStepSizeGb of the API).
func (t FilestoreTier) StepGB() int64 { return t.Steps[0].Step }

const tib = 1024 // GB per TiB in Filestore's GiB-based units

// 63.9 TiB = 65,433.6 GB; the largest whole GB within it is 65,433.
const basicMaxGB = 65433

var filestoreTiers = []FilestoreTier{
	{
		Name: "BASIC_HDD", Basic: true, MinGB: 1 * tib, MaxGB: basicMaxGB,
		Steps:        []CapacityStep{{Min: 1 * tib, Max: basicMaxGB, Step: 1}},
		ShareNameMax: 16, DirectPeeringPrefix: 29,
	},
	{
		// 2.5 TiB = 2560 GB.
		Name: "BASIC_SSD", Basic: true, MinGB: 2560, MaxGB: basicMaxGB,
		Steps:        []CapacityStep{{Min: 2560, Max: basicMaxGB, Step: 1}},
		ShareNameMax: 16, DirectPeeringPrefix: 29,
	},
	{
		// 1-9.75 TiB in 256 GB steps, then 10-100 TiB in 2.5 TiB steps.
		// The /26 reserved range for Zonal and Regional is the public
		// Filestore docs value (the facts file lists Basic, High Scale and
		// Enterprise only).
		Name: "ZONAL", MinGB: 1 * tib, MaxGB: 100 * tib,
		Steps:     []CapacityStep{{Min: 1 * tib, Max: 9984, Step: 256}, {Min: 10 * tib, Max: 100 * tib, Step: 2560}},
		CanShrink: true, ShareNameMax: 63, DirectPeeringPrefix: 26, NFSv41: true,
	},
	{
		Name: "REGIONAL", MinGB: 1 * tib, MaxGB: 100 * tib,
		Steps:     []CapacityStep{{Min: 1 * tib, Max: 9984, Step: 256}, {Min: 10 * tib, Max: 100 * tib, Step: 2560}},
		CanShrink: true, ShareNameMax: 63, DirectPeeringPrefix: 26, Regional: true, NFSv41: true,
	},
	{
		// Enterprise is regional and can shrink (public Filestore docs).
		Name: "ENTERPRISE", MinGB: 1 * tib, MaxGB: 10 * tib,
		Steps:     []CapacityStep{{Min: 1 * tib, Max: 10 * tib, Step: 256}},
		CanShrink: true, ShareNameMax: 63, DirectPeeringPrefix: 26, Regional: true, NFSv41: true,
	},
	{
		// Step of 2.5 TiB as for Zonal's upper range; shrinking is allowed
		// (public Filestore docs).
		Name: "HIGH_SCALE_SSD", MinGB: 10 * tib, MaxGB: 100 * tib,
		Steps:     []CapacityStep{{Min: 10 * tib, Max: 100 * tib, Step: 2560}},
		CanShrink: true, ShareNameMax: 63, DirectPeeringPrefix: 24, Legacy: true,
	},
}

// Older tier names the API still accepts.
var filestoreTierAliases = map[string]string{
	"STANDARD": "BASIC_HDD",
	"PREMIUM":  "BASIC_SSD",
}

func (t FilestoreTier) clone() FilestoreTier {
	t.Steps = append([]CapacityStep(nil), t.Steps...)
	return t
}

// FilestoreTiers returns every tier.
func FilestoreTiers() []FilestoreTier {
	out := make([]FilestoreTier, len(filestoreTiers))
	for i, t := range filestoreTiers {
		out[i] = t.clone()
	}
	return out
}

// FilestoreTierNames returns the canonical tier names.
func FilestoreTierNames() []string {
	out := make([]string, len(filestoreTiers))
	for i, t := range filestoreTiers {
		out[i] = t.Name
	}
	return out
}

// FilestoreTierByName looks a tier up by its API name; the legacy names
// STANDARD and PREMIUM resolve to BASIC_HDD and BASIC_SSD.
func FilestoreTierByName(name string) (FilestoreTier, bool) {
	if canon, ok := filestoreTierAliases[name]; ok {
		name = canon
	}
	for _, t := range filestoreTiers {
		if t.Name == name {
			return t.clone(), true
		}
	}
	return FilestoreTier{}, false
}

func filestoreTier(name string) (FilestoreTier, error) {
	t, ok := FilestoreTierByName(name)
	if !ok {
		return t, fmt.Errorf("Filestore tier %q is not known; use one of %s", name, strings.Join(FilestoreTierNames(), ", "))
	}
	return t, nil
}

func (t FilestoreTier) capacityRule() capacityRule {
	return capacityRule{field: "capacity_gb", unit: "GB", what: "tier " + t.Name, steps: t.Steps}
}

// ValidateFilestoreCapacity checks a file share capacity (GB = GiB) against
// the tier's ranges and steps.
func ValidateFilestoreCapacity(tier string, gb int64) error {
	t, err := filestoreTier(tier)
	if err != nil {
		return err
	}
	return t.capacityRule().check(gb)
}

// ValidateFilestoreResize checks an in-place capacity change: the new size
// must be valid, and Basic tiers can only grow.
func ValidateFilestoreResize(tier string, from, to int64) error {
	t, err := filestoreTier(tier)
	if err != nil {
		return err
	}
	if err := t.capacityRule().check(to); err != nil {
		return err
	}
	if to < from && !t.CanShrink {
		return fmt.Errorf("capacity_gb cannot shrink from %d to %d: tier %s can only grow; "+
			"to get a smaller share, create a new instance and copy the data", from, to, t.Name)
	}
	return nil
}

var shareNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// ValidateFilestoreShareName checks a file share name: a lowercase letter,
// then lowercase letters, digits and underscores, at most 16 characters on
// Basic tiers and 63 otherwise.
func ValidateFilestoreShareName(tier, name string) error {
	t, err := filestoreTier(tier)
	if err != nil {
		return err
	}
	if name == "" {
		return fmt.Errorf("file share name must not be empty")
	}
	if len(name) > t.ShareNameMax {
		return fmt.Errorf("file share name %q is %d characters long; tier %s allows at most %d", name, len(name), t.Name, t.ShareNameMax)
	}
	if !shareNameRE.MatchString(name) {
		return fmt.Errorf("file share name %q is invalid: it must start with a lowercase letter and contain only lowercase letters, digits and underscores", name)
	}
	return nil
}

// ValidateFilestoreLocation checks that a location suits the tier: a region
// for REGIONAL and ENTERPRISE, a zone for the others.
func ValidateFilestoreLocation(tier, location string) error {
	t, err := filestoreTier(tier)
	if err != nil {
		return err
	}
	if t.Regional {
		if IsRegion(location) {
			return nil
		}
		if r, ok := RegionOf(location); ok {
			return fmt.Errorf("tier %s instances live in a region: use location %q instead of the zone %q", t.Name, r, location)
		}
		return fmt.Errorf("location %q is not a known region (tier %s needs a region)", location, t.Name)
	}
	if _, ok := Zone(location); ok {
		return nil
	}
	if IsRegion(location) {
		return fmt.Errorf("tier %s instances live in a zone: use a zone of %s such as %s-a, not the region", t.Name, location, location)
	}
	return ValidateZone(location)
}

// Filestore's file protocols, as the API names them. NFS_V3 is the API's
// default when none is given.
const (
	FilestoreNFSv3  = "NFS_V3"
	FilestoreNFSv41 = "NFS_V4_1"
)

// FilestoreProtocols returns the protocols some tier offers.
func FilestoreProtocols() []string { return []string{FilestoreNFSv3, FilestoreNFSv41} }

// FilestoreNFSv41Tiers returns the names of the tiers that offer NFS_V4_1.
func FilestoreNFSv41Tiers() []string {
	var out []string
	for _, t := range filestoreTiers {
		if t.NFSv41 {
			out = append(out, t.Name)
		}
	}
	return out
}

// ValidateFilestoreProtocol checks that the tier offers the protocol; ""
// (unset) means the API's default, NFS_V3.
func ValidateFilestoreProtocol(tier, protocol string) error {
	t, err := filestoreTier(tier)
	if err != nil {
		return err
	}
	switch protocol {
	case "", FilestoreNFSv3:
		return nil
	case FilestoreNFSv41:
		if t.NFSv41 {
			return nil
		}
		return fmt.Errorf("NFS_V4_1 is offered by the %s tiers, not %s; use NFS_V3 or another tier", joinAnd(FilestoreNFSv41Tiers()), t.Name)
	}
	return fmt.Errorf("protocol %q is not offered; use %s or %s", protocol, FilestoreNFSv3, FilestoreNFSv41)
}

// joinAnd lists names as prose: "A", "A and B", "A, B and C".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
