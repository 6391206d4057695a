package compute

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// MTU bounds and default of a VPC network (gcp-apis.md).
const (
	minMTU     = 1300
	maxMTU     = 8896
	defaultMTU = 1460
)

func init() { addRoutes(networkRoutes) }

func networkRoutes(s *Service) {
	p := prefix + "/global/networks"
	s.handle("POST "+p, "compute.networks.insert", core.Mutating, s.insertNetwork)
	s.handle("GET "+p, "compute.networks.list", core.Read, func(w http.ResponseWriter, r *http.Request) {
		s.list(w, r, "compute#networkList", KindNetworks, "projects/"+r.PathValue("project")+"/global/networks/")
	})
	s.handle("GET "+p+"/{network}", "compute.networks.get", core.Read, func(w http.ResponseWriter, r *http.Request) {
		s.getNamed(w, r, KindNetworks, networkKey(r.PathValue("project"), r.PathValue("network")))
	})
	s.handle("DELETE "+p+"/{network}", "compute.networks.delete", core.Mutating, s.deleteNetwork)
	s.handle("PATCH "+p+"/{network}", "compute.networks.patch", core.Mutating, s.patchNetwork)
}

func networkKey(project, name string) string {
	return "projects/" + project + "/global/networks/" + name
}

// kindInstances is where the instances package keeps VMs; their NICs hold networks and subnetworks.
const kindInstances = "compute.instances"

// networkUserKinds are the kinds whose resources reference a network (top-level "network", or
// "networkInterfaces[].network" for instances); deleting a network they use fails. Other packages add checks
// with AddDeleteGuard.
var networkUserKinds = []string{KindSubnetworks, KindFirewalls, KindRouters, KindGlobalAddresses, KindAddresses, kindInstances, KindRoutes}

func (s *Service) insertNetwork(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	var n computepb.Network
	if !decode(w, r, &n) {
		return
	}
	if e := core.ValidateName("resource.name", n.GetName()); e != nil {
		fail(w, r, e)
		return
	}
	key := networkKey(project, n.GetName())
	if s.Store.Exists(KindNetworks, key) {
		fail(w, r, core.AlreadyExists(key))
		return
	}
	if n.IPv4Range != nil {
		fail(w, r, core.InvalidField("resource.IPv4Range", n.GetIPv4Range(), "Legacy networks are not supported; set autoCreateSubnetworks."))
		return
	}
	auto := n.AutoCreateSubnetworks == nil || n.GetAutoCreateSubnetworks()
	n.AutoCreateSubnetworks = proto.Bool(auto)
	rdma := false
	if n.NetworkProfile != nil {
		profile, ok := networkProfile(project, n.GetNetworkProfile())
		if !ok {
			fail(w, r, core.NotFound(core.RelativePath(resolveRef(project, "global", "networkProfiles", n.GetNetworkProfile()))))
			return
		}
		if auto {
			fail(w, r, core.InvalidField("resource.autoCreateSubnetworks", "true", "Auto mode subnet creation is not allowed in networks with network profile "+profile.name+"."))
			return
		}
		n.NetworkProfile = proto.String(core.SelfLink(profile.key))
		rdma = true
	}
	if n.Mtu == nil {
		// Compute answers no mtu for a network created without one (it runs at 1460, see effectiveMTU);
		// a network on a RoCE profile takes the profile's 8896.
		if rdma {
			n.Mtu = proto.Int32(maxMTU)
		}
	} else if m := n.GetMtu(); m < minMTU || m > maxMTU {
		fail(w, r, core.InvalidField("resource.mtu", strconv.Itoa(int(m)), fmt.Sprintf("Must be greater than or equal to %d and less than or equal to %d.", minMTU, maxMTU)))
		return
	}
	if e := validateRoutingConfig(n.RoutingConfig); e != nil {
		fail(w, r, e)
		return
	}
	if n.RoutingConfig == nil {
		n.RoutingConfig = &computepb.NetworkRoutingConfig{}
	}
	if n.RoutingConfig.RoutingMode == nil {
		n.RoutingConfig.RoutingMode = proto.String("REGIONAL")
	}
	if n.RoutingConfig.BgpBestPathSelectionMode == nil {
		n.RoutingConfig.BgpBestPathSelectionMode = proto.String("LEGACY")
	}
	if n.NetworkFirewallPolicyEnforcementOrder == nil {
		n.NetworkFirewallPolicyEnforcementOrder = proto.String("AFTER_CLASSIC_FIREWALL")
	}
	id, created, self := s.newMeta(KindNetworks, key)
	n.Kind = proto.String("compute#network")
	n.Id = proto.Uint64(id)
	n.CreationTimestamp = proto.String(created)
	n.SelfLink = proto.String(self)
	n.SelfLinkWithId = proto.String(core.SelfLink(fmt.Sprintf("projects/%s/global/networks/%d", project, id)))
	n.Subnetworks = nil
	n.Peerings = nil
	n.GatewayIPv4 = nil

	answerOp(w, s.opFor(r, key, "insert", id, func(tx *core.Tx, _ *computepb.Operation) error {
		if tx.Exists(KindNetworks, key) {
			return core.OpAlreadyExists(key)
		}
		if auto {
			if err := s.createAutoSubnets(tx, project, &n); err != nil {
				return err
			}
		}
		return tx.Put(KindNetworks, key, &n)
	}))
}

func validateRoutingConfig(rc *computepb.NetworkRoutingConfig) *core.APIError {
	if rc == nil {
		return nil
	}
	if m := rc.GetRoutingMode(); rc.RoutingMode != nil && m != "REGIONAL" && m != "GLOBAL" {
		return core.InvalidField("resource.routingConfig.routingMode", m, "Must be REGIONAL or GLOBAL.")
	}
	if m := rc.GetBgpBestPathSelectionMode(); rc.BgpBestPathSelectionMode != nil && m != "LEGACY" && m != "STANDARD" {
		return core.InvalidField("resource.routingConfig.bgpBestPathSelectionMode", m, "Must be LEGACY or STANDARD.")
	}
	return nil
}

// createAutoSubnets gives an auto-mode network one subnet per region, named after the network, with the
// region's fixed range of Google's auto-mode plan (catalog.AutoModeSubnetRange).
func (s *Service) createAutoSubnets(tx *core.Tx, project string, n *computepb.Network) error {
	for _, region := range catalog.Regions() {
		key := subnetKey(project, region, n.GetName())
		if tx.Exists(KindSubnetworks, key) {
			return core.OpAlreadyExists(key)
		}
		cidr, ok := catalog.AutoModeSubnetRange(region)
		if !ok {
			continue
		}
		sub := &computepb.Subnetwork{
			Name:        n.Name,
			Network:     n.SelfLink,
			IpCidrRange: proto.String(cidr),
		}
		s.fillSubnet(sub, project, region)
		if err := tx.Put(KindSubnetworks, key, sub); err != nil {
			return err
		}
		n.Subnetworks = append(n.Subnetworks, sub.GetSelfLink())
	}
	return nil
}

func (s *Service) deleteNetwork(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	key := networkKey(project, r.PathValue("network"))
	var n computepb.Network
	if ok, _ := s.Store.Get(KindNetworks, key, &n); !ok {
		fail(w, r, core.NotFound(key))
		return
	}
	answerOp(w, s.opFor(r, key, "delete", n.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		var cur computepb.Network
		if ok, _ := tx.Get(KindNetworks, key, &cur); !ok {
			return core.OpNotFound(key)
		}
		// Google deletes an auto-mode network's own subnets with it, unless something else uses them.
		auto := map[string]bool{}
		if cur.GetAutoCreateSubnetworks() {
			for _, region := range catalog.Regions() {
				auto[subnetKey(project, region, cur.GetName())] = true
			}
		}
		if user := networkUser(tx, key, auto); user != "" {
			return core.OpResourceInUse(key, user)
		}
		if user := guardDelete(tx, KindNetworks, key); user != "" {
			return core.OpResourceInUse(key, user)
		}
		for k := range auto {
			tx.Delete(KindSubnetworks, k)
		}
		tx.Delete(KindNetworks, key)
		return nil
	}))
}

// networkUser returns the key of a resource that uses the network at key (ignoring the keys in skip), or "".
func networkUser(tx *core.Tx, key string, skip map[string]bool) string {
	for _, kind := range networkUserKinds {
		for _, rec := range tx.List(kind, "") {
			if skip[rec.Key] {
				continue
			}
			if referencesNetwork(rec.JSON, key) {
				return rec.Key
			}
		}
	}
	return ""
}

func referencesNetwork(resource json.RawMessage, key string) bool {
	var probe struct {
		Network           string `json:"network"`
		NetworkInterfaces []struct {
			Network string `json:"network"`
		} `json:"networkInterfaces"`
	}
	if json.Unmarshal(resource, &probe) != nil {
		return false
	}
	if probe.Network != "" && core.RelativePath(probe.Network) == key {
		return true
	}
	for _, nic := range probe.NetworkInterfaces {
		if nic.Network != "" && core.RelativePath(nic.Network) == key {
			return true
		}
	}
	return false
}

// patchNetwork applies a merge patch. Like Google, only routingConfig, mtu, description-free settings may
// change; the name, mode and network profile are fixed at creation.
func (s *Service) patchNetwork(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	key := networkKey(project, r.PathValue("network"))
	old, ok := s.Store.GetRaw(KindNetworks, key)
	if !ok {
		fail(w, r, core.NotFound(key))
		return
	}
	var patch json.RawMessage
	if e := core.ReadJSON(r, &patch); e != nil {
		fail(w, r, e)
		return
	}
	var probe computepb.Network
	if err := core.ReadJSONBytes(patch, &probe); err != nil {
		fail(w, r, err)
		return
	}
	var before, after computepb.Network
	_ = core.Decode(old, &before)
	merged, err := core.MergePatch(old, patch)
	if err != nil {
		fail(w, r, core.Invalid("Invalid JSON payload received. "+err.Error()))
		return
	}
	if err := core.Decode(merged, &after); err != nil {
		fail(w, r, core.Invalid("Invalid JSON payload received. "+err.Error()))
		return
	}
	if after.GetName() != before.GetName() {
		fail(w, r, core.InvalidField("resource.name", after.GetName(), "The name of a network cannot be changed."))
		return
	}
	if after.GetAutoCreateSubnetworks() != before.GetAutoCreateSubnetworks() {
		fail(w, r, core.InvalidField("resource.autoCreateSubnetworks", strconv.FormatBool(after.GetAutoCreateSubnetworks()), "Use networks.switchToCustomMode to change the subnet mode."))
		return
	}
	if core.RelativePath(after.GetNetworkProfile()) != core.RelativePath(before.GetNetworkProfile()) {
		fail(w, r, core.InvalidField("resource.networkProfile", after.GetNetworkProfile(), "The network profile can only be set when the network is created."))
		return
	}
	// networks.patch documents routingConfig (and, in practice, mtu) as the fields it changes; the
	// description is set at insert only, which hypercompute_network's creation marker relies on.
	if after.GetDescription() != before.GetDescription() {
		fail(w, r, core.InvalidField("resource.description", after.GetDescription(), "The description of a network can only be set when the network is created."))
		return
	}
	if m := after.GetMtu(); m < minMTU || m > maxMTU {
		fail(w, r, core.InvalidField("resource.mtu", strconv.Itoa(int(m)), fmt.Sprintf("Must be greater than or equal to %d and less than or equal to %d.", minMTU, maxMTU)))
		return
	}
	if e := validateRoutingConfig(after.RoutingConfig); e != nil {
		fail(w, r, e)
		return
	}
	answerOp(w, s.opFor(r, key, "patch", before.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		var cur computepb.Network
		if ok, _ := tx.Get(KindNetworks, key, &cur); !ok {
			return core.OpNotFound(key)
		}
		// Output-only fields come from the current record, not from the request.
		cur.Mtu = after.Mtu
		cur.RoutingConfig = after.RoutingConfig
		cur.Description = after.Description
		cur.NetworkFirewallPolicyEnforcementOrder = after.NetworkFirewallPolicyEnforcementOrder
		cur.EnableUlaInternalIpv6 = after.EnableUlaInternalIpv6
		return tx.Put(KindNetworks, key, &cur)
	}))
}

// addNetworkSubnet records a subnetwork URL on its network (Network.subnetworks is output only).
func addNetworkSubnet(tx *core.Tx, networkKey, subnetSelfLink string) error {
	var n computepb.Network
	if ok, _ := tx.Get(KindNetworks, networkKey, &n); !ok {
		return core.OpNotFound(networkKey)
	}
	if !slices.Contains(n.Subnetworks, subnetSelfLink) {
		n.Subnetworks = append(n.Subnetworks, subnetSelfLink)
		slices.Sort(n.Subnetworks)
	}
	return tx.Put(KindNetworks, networkKey, &n)
}

func removeNetworkSubnet(tx *core.Tx, networkKey, subnetSelfLink string) error {
	var n computepb.Network
	if ok, _ := tx.Get(KindNetworks, networkKey, &n); !ok {
		return nil
	}
	n.Subnetworks = slices.DeleteFunc(n.Subnetworks, func(s string) bool { return s == subnetSelfLink })
	return tx.Put(KindNetworks, networkKey, &n)
}

// lookupNetwork resolves a "network" field of a request, answering 404 (as Compute does) when it does not exist.
func (s *Service) lookupNetwork(project, ref string) (key string, n *computepb.Network, e *core.APIError) {
	if ref == "" {
		ref = "default"
	}
	key = resolveRef(project, "global", "networks", ref)
	n = &computepb.Network{}
	if ok, _ := s.Store.Get(KindNetworks, key, n); !ok {
		return key, nil, core.NotFound(key)
	}
	return key, n, nil
}

// networkProfileInfo is a network profile the emulator offers: one RDMA profile per zone that has one.
type networkProfileInfo struct {
	name, zone, key string
}

func networkProfiles(project string) []networkProfileInfo {
	var out []networkProfileInfo
	for _, z := range catalog.Zones() {
		if p := z.NetworkProfile(); p != "" {
			out = append(out, networkProfileInfo{name: p, zone: z.Name, key: "projects/" + project + "/global/networkProfiles/" + p})
		}
	}
	return out
}

func networkProfile(project, ref string) (networkProfileInfo, bool) {
	name := lastSegment(strings.TrimSuffix(ref, "/"))
	for _, p := range networkProfiles(project) {
		if p.name == name {
			return p, true
		}
	}
	return networkProfileInfo{}, false
}

// effectiveMTU is the MTU a network runs at: its own, or the default when it was created without one.
func effectiveMTU(n *computepb.Network) int32 {
	if m := n.GetMtu(); m > 0 {
		return m
	}
	return defaultMTU
}
