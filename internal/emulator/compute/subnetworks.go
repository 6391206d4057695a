package compute

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

func init() { addRoutes(subnetworkRoutes) }

func subnetworkRoutes(s *Service) {
	p := prefix + "/regions/{region}/subnetworks"
	s.handle("POST "+p, "compute.subnetworks.insert", core.Mutating, s.insertSubnet)
	s.handle("GET "+p, "compute.subnetworks.list", core.Read, func(w http.ResponseWriter, r *http.Request) {
		if region, ok := s.region(w, r); ok {
			s.list(w, r, "compute#subnetworkList", KindSubnetworks, subnetKey(r.PathValue("project"), region, ""))
		}
	})
	s.handle("GET "+p+"/{subnetwork}", "compute.subnetworks.get", core.Read, func(w http.ResponseWriter, r *http.Request) {
		if region, ok := s.region(w, r); ok {
			s.getNamed(w, r, KindSubnetworks, subnetKey(r.PathValue("project"), region, r.PathValue("subnetwork")))
		}
	})
	s.handle("DELETE "+p+"/{subnetwork}", "compute.subnetworks.delete", core.Mutating, s.deleteSubnet)
	s.handle("PATCH "+p+"/{subnetwork}", "compute.subnetworks.patch", core.Mutating, s.patchSubnet)
	s.handle("POST "+p+"/{subnetwork}/expandIpCidrRange", "compute.subnetworks.expandIpCidrRange", core.Mutating, s.expandSubnet)
	s.handle("POST "+p+"/{subnetwork}/setPrivateIpGoogleAccess", "compute.subnetworks.setPrivateIpGoogleAccess", core.Mutating, s.setPrivateIPGoogleAccess)
	s.handle("GET "+prefix+"/aggregated/subnetworks", "compute.subnetworks.aggregatedList", core.Read, func(w http.ResponseWriter, r *http.Request) {
		s.aggregated(w, r, "compute#subnetworkAggregatedList", "subnetworks", s.Store.List(KindSubnetworks, "projects/"+r.PathValue("project")+"/"), regionScopes())
	})
}

func subnetKey(project, region, name string) string {
	return "projects/" + project + "/regions/" + region + "/subnetworks/" + name
}

// subnetUserKinds are the kinds whose resources may reference a subnetwork ("subnetwork",
// "networkInterfaces[].subnetwork", "nats[].subnetworks[].name"). Other packages add checks with AddDeleteGuard.
var subnetUserKinds = []string{KindRouters, KindAddresses, kindInstances}

// fillSubnet sets the server-owned fields of a new subnetwork.
func (s *Service) fillSubnet(sub *computepb.Subnetwork, project, region string) {
	key := subnetKey(project, region, sub.GetName())
	id, created, self := s.newMeta(KindSubnetworks, key)
	sub.Kind = proto.String("compute#subnetwork")
	sub.Id = proto.Uint64(id)
	sub.CreationTimestamp = proto.String(created)
	sub.SelfLink = proto.String(self)
	sub.Region = proto.String(core.SelfLink("projects/" + project + "/regions/" + region))
	if p, err := netip.ParsePrefix(sub.GetIpCidrRange()); err == nil {
		sub.GatewayAddress = proto.String(gatewayOf(p))
	}
	sub.Fingerprint = proto.String(s.newFingerprint())
	if sub.PrivateIpGoogleAccess == nil {
		sub.PrivateIpGoogleAccess = proto.Bool(false)
	}
	if sub.Purpose == nil {
		sub.Purpose = proto.String("PRIVATE")
	}
	if sub.StackType == nil {
		sub.StackType = proto.String("IPV4_ONLY")
	}
	if sub.PrivateIpv6GoogleAccess == nil {
		sub.PrivateIpv6GoogleAccess = proto.String("DISABLE_GOOGLE_ACCESS")
	}
	// Compute answers these even when empty or default.
	sub.State = proto.String("READY")
}

// takenRange is an address range already used inside a network.
type takenRange struct {
	prefix netip.Prefix
	what   string // how Compute names the owner in a conflict message
	key    string
}

// takenRanges lists the ranges used in a network: subnet primary and secondary ranges and allocated
// (VPC_PEERING) global address ranges.
func takenRanges(recs func(kind string) []core.Record, netKey string) []takenRange {
	var out []takenRange
	for _, rec := range recs(KindSubnetworks) {
		var sub computepb.Subnetwork
		if rec.Decode(&sub) != nil || core.RelativePath(sub.GetNetwork()) != netKey {
			continue
		}
		region := lastSegment(sub.GetRegion())
		owner := fmt.Sprintf("existing subnetwork '%s' in region '%s'", sub.GetName(), region)
		if p, err := netip.ParsePrefix(sub.GetIpCidrRange()); err == nil {
			out = append(out, takenRange{p, owner, rec.Key})
		}
		for _, sr := range sub.SecondaryIpRanges {
			if p, err := netip.ParsePrefix(sr.GetIpCidrRange()); err == nil {
				out = append(out, takenRange{p, owner + " (secondary range '" + sr.GetRangeName() + "')", rec.Key})
			}
		}
	}
	for _, rec := range recs(KindGlobalAddresses) {
		var a computepb.Address
		if rec.Decode(&a) != nil || a.GetPurpose() != "VPC_PEERING" || core.RelativePath(a.GetNetwork()) != netKey {
			continue
		}
		if p, err := netip.ParsePrefix(fmt.Sprintf("%s/%d", a.GetAddress(), a.GetPrefixLength())); err == nil {
			out = append(out, takenRange{p, fmt.Sprintf("allocated range '%s'", a.GetName()), rec.Key})
		}
	}
	return out
}

// validateSubnetRanges checks the primary and secondary ranges of sub, among themselves and against the rest of
// the network (ignoring the subnet's own key).
func validateSubnetRanges(sub *computepb.Subnetwork, taken []takenRange, selfKey string) *core.APIError {
	primary, err := parseSubnetCIDR(sub.GetIpCidrRange())
	if err != nil {
		return core.InvalidField("resource.ipCidrRange", sub.GetIpCidrRange(), "Invalid IPCidrRange: "+err.Error()+".")
	}
	mine := []takenRange{{primary, "the primary range", selfKey}}
	names := map[string]bool{}
	for i, sr := range sub.SecondaryIpRanges {
		field := fmt.Sprintf("resource.secondaryIpRanges[%d]", i)
		if e := core.ValidateName(field+".rangeName", sr.GetRangeName()); e != nil {
			return e
		}
		if names[sr.GetRangeName()] {
			return core.InvalidField(field+".rangeName", sr.GetRangeName(), "Secondary range names must be unique within a subnetwork.")
		}
		names[sr.GetRangeName()] = true
		p, err := parseSubnetCIDR(sr.GetIpCidrRange())
		if err != nil {
			return core.InvalidField(field+".ipCidrRange", sr.GetIpCidrRange(), "Invalid IPCidrRange: "+err.Error()+".")
		}
		for _, m := range mine {
			if m.prefix.Overlaps(p) {
				return core.Invalid(fmt.Sprintf("Invalid IPCidrRange: %s conflicts with %s of this subnetwork.", p, m.what))
			}
		}
		mine = append(mine, takenRange{p, "secondary range '" + sr.GetRangeName() + "'", selfKey})
	}
	for _, m := range mine {
		for _, t := range taken {
			if t.key != selfKey && t.prefix.Overlaps(m.prefix) {
				return core.Invalid(fmt.Sprintf("Invalid IPCidrRange: %s conflicts with %s.", m.prefix, t.what))
			}
		}
	}
	return nil
}

func (s *Service) insertSubnet(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	region, ok := s.region(w, r)
	if !ok {
		return
	}
	var sub computepb.Subnetwork
	if !decode(w, r, &sub) {
		return
	}
	if e := core.ValidateName("resource.name", sub.GetName()); e != nil {
		fail(w, r, e)
		return
	}
	key := subnetKey(project, region, sub.GetName())
	if s.Store.Exists(KindSubnetworks, key) {
		fail(w, r, core.AlreadyExists(key))
		return
	}
	if sub.GetNetwork() == "" {
		fail(w, r, core.Required("resource.network"))
		return
	}
	if sub.GetIpCidrRange() == "" {
		fail(w, r, core.Required("resource.ipCidrRange"))
		return
	}
	netKey, network, e := s.lookupNetwork(project, sub.GetNetwork())
	if e != nil {
		fail(w, r, e)
		return
	}
	if profile := network.GetNetworkProfile(); profile != "" {
		if p, ok := networkProfile(project, profile); ok {
			if zr, _ := catalog.RegionOf(p.zone); zr != region {
				fail(w, r, core.InvalidField("resource.region", region,
					fmt.Sprintf("Network '%s' uses network profile '%s', which only allows resources in zone '%s'.", network.GetName(), p.name, p.zone)))
				return
			}
		}
	}
	if e := validateSubnetRanges(&sub, takenRanges(func(k string) []core.Record { return s.Store.List(k, "") }, netKey), key); e != nil {
		fail(w, r, e)
		return
	}
	sub.Network = network.SelfLink
	s.fillSubnet(&sub, project, region)
	answerOp(w, s.opFor(r, key, "insert", sub.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		if tx.Exists(KindSubnetworks, key) {
			return core.OpAlreadyExists(key)
		}
		if !tx.Exists(KindNetworks, netKey) {
			return core.OpNotFound(netKey)
		}
		if e := validateSubnetRanges(&sub, takenRanges(func(k string) []core.Record { return tx.List(k, "") }, netKey), key); e != nil {
			return core.NewOpError(400, "INVALID_USAGE", e.Message)
		}
		if err := tx.Put(KindSubnetworks, key, &sub); err != nil {
			return err
		}
		return addNetworkSubnet(tx, netKey, sub.GetSelfLink())
	}))
}

func (s *Service) subnetFromPath(w http.ResponseWriter, r *http.Request) (string, *computepb.Subnetwork, bool) {
	region, ok := s.region(w, r)
	if !ok {
		return "", nil, false
	}
	key := subnetKey(r.PathValue("project"), region, r.PathValue("subnetwork"))
	var sub computepb.Subnetwork
	if ok, _ := s.Store.Get(KindSubnetworks, key, &sub); !ok {
		fail(w, r, core.NotFound(key))
		return "", nil, false
	}
	return key, &sub, true
}

func (s *Service) deleteSubnet(w http.ResponseWriter, r *http.Request) {
	key, sub, ok := s.subnetFromPath(w, r)
	if !ok {
		return
	}
	answerOp(w, s.opFor(r, key, "delete", sub.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		var cur computepb.Subnetwork
		if ok, _ := tx.Get(KindSubnetworks, key, &cur); !ok {
			return core.OpNotFound(key)
		}
		if user := subnetUser(tx, key); user != "" {
			return core.OpResourceInUse(key, user)
		}
		if user := guardDelete(tx, KindSubnetworks, key); user != "" {
			return core.OpResourceInUse(key, user)
		}
		tx.Delete(KindSubnetworks, key)
		return removeNetworkSubnet(tx, core.RelativePath(cur.GetNetwork()), cur.GetSelfLink())
	}))
}

func subnetUser(tx *core.Tx, key string) string {
	for _, kind := range subnetUserKinds {
		for _, rec := range tx.List(kind, "") {
			if referencesSubnet(rec.JSON, key) {
				return rec.Key
			}
		}
	}
	return ""
}

func referencesSubnet(resource json.RawMessage, key string) bool {
	var probe struct {
		Subnetwork        string `json:"subnetwork"`
		NetworkInterfaces []struct {
			Subnetwork string `json:"subnetwork"`
		} `json:"networkInterfaces"`
		Nats []struct {
			Subnetworks []struct {
				Name string `json:"name"`
			} `json:"subnetworks"`
		} `json:"nats"`
	}
	if json.Unmarshal(resource, &probe) != nil {
		return false
	}
	if probe.Subnetwork != "" && core.RelativePath(probe.Subnetwork) == key {
		return true
	}
	for _, nic := range probe.NetworkInterfaces {
		if nic.Subnetwork != "" && core.RelativePath(nic.Subnetwork) == key {
			return true
		}
	}
	for _, nat := range probe.Nats {
		for _, sn := range nat.Subnetworks {
			if core.RelativePath(sn.Name) == key {
				return true
			}
		}
	}
	return false
}
