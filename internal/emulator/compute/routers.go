package compute

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

func init() { addRoutes(routerRoutes) }

func routerRoutes(s *Service) {
	p := prefix + "/regions/{region}/routers"
	s.handle("POST "+p, "compute.routers.insert", core.Mutating, s.insertRouter)
	s.handle("GET "+p, "compute.routers.list", core.Read, func(w http.ResponseWriter, r *http.Request) {
		if region, ok := s.region(w, r); ok {
			s.list(w, r, "compute#routerList", KindRouters, routerKey(r.PathValue("project"), region, ""))
		}
	})
	s.handle("GET "+p+"/{router}", "compute.routers.get", core.Read, func(w http.ResponseWriter, r *http.Request) {
		if region, ok := s.region(w, r); ok {
			s.getNamed(w, r, KindRouters, routerKey(r.PathValue("project"), region, r.PathValue("router")))
		}
	})
	s.handle("DELETE "+p+"/{router}", "compute.routers.delete", core.Mutating, s.deleteRouter)
	s.handle("PATCH "+p+"/{router}", "compute.routers.patch", core.Mutating, func(w http.ResponseWriter, r *http.Request) { s.changeRouter(w, r, true) })
	s.handle("PUT "+p+"/{router}", "compute.routers.update", core.Mutating, func(w http.ResponseWriter, r *http.Request) { s.changeRouter(w, r, false) })
	s.handle("GET "+prefix+"/aggregated/routers", "compute.routers.aggregatedList", core.Read, func(w http.ResponseWriter, r *http.Request) {
		s.aggregated(w, r, "compute#routerAggregatedList", "routers", s.Store.List(KindRouters, "projects/"+r.PathValue("project")+"/"), regionScopes())
	})
}

func routerKey(project, region, name string) string {
	return "projects/" + project + "/regions/" + region + "/routers/" + name
}

var (
	natIPOptions    = map[string]bool{"AUTO_ONLY": true, "MANUAL_ONLY": true}
	natSourceRanges = map[string]bool{"ALL_SUBNETWORKS_ALL_IP_RANGES": true, "ALL_SUBNETWORKS_ALL_PRIMARY_IP_RANGES": true, "LIST_OF_SUBNETWORKS": true}
)

// validateRouter checks BGP and NAT settings and resolves NAT subnetwork references to selfLinks. Subnetworks
// named by a NAT must exist in the router's region and network.
func (s *Service) validateRouter(rt *computepb.Router, project, region, netKey string) *core.APIError {
	if bgp := rt.Bgp; bgp != nil && bgp.Asn != nil {
		asn := bgp.GetAsn()
		if !(asn == 16550 || asn >= 64512 && asn <= 65534 || asn >= 4200000000 && asn <= 4294967294) {
			return core.InvalidField("resource.bgp.asn", strconv.FormatUint(uint64(asn), 10), "Must be a private ASN (64512-65534, 4200000000-4294967294) or 16550.")
		}
	}
	names := map[string]bool{}
	for i, nat := range rt.Nats {
		field := fmt.Sprintf("resource.nats[%d]", i)
		if e := core.ValidateName(field+".name", nat.GetName()); e != nil {
			return e
		}
		if names[nat.GetName()] {
			return core.InvalidField(field+".name", nat.GetName(), "NAT names must be unique within a router.")
		}
		names[nat.GetName()] = true
		if e := s.validateNatKind(nat, field, project, region); e != nil {
			return e
		}
		// Private NAT translates to the PRIVATE_NAT subnet ranges its rules name, never to NAT IPs
		// (validateNatKind).
		if nat.GetType() != natPrivate {
			if nat.NatIpAllocateOption == nil {
				return core.Required(field + ".natIpAllocateOption")
			}
			if !natIPOptions[nat.GetNatIpAllocateOption()] {
				return core.InvalidField(field+".natIpAllocateOption", nat.GetNatIpAllocateOption(), "Must be AUTO_ONLY or MANUAL_ONLY.")
			}
			if nat.GetNatIpAllocateOption() == "MANUAL_ONLY" && len(nat.NatIps) == 0 {
				return core.Required(field + ".natIps")
			}
		}
		if nat.SourceSubnetworkIpRangesToNat == nil {
			return core.Required(field + ".sourceSubnetworkIpRangesToNat")
		}
		if !natSourceRanges[nat.GetSourceSubnetworkIpRangesToNat()] {
			return core.InvalidField(field+".sourceSubnetworkIpRangesToNat", nat.GetSourceSubnetworkIpRangesToNat(), "Must be one of ALL_SUBNETWORKS_ALL_IP_RANGES, ALL_SUBNETWORKS_ALL_PRIMARY_IP_RANGES, LIST_OF_SUBNETWORKS.")
		}
		if nat.GetSourceSubnetworkIpRangesToNat() == "LIST_OF_SUBNETWORKS" && len(nat.Subnetworks) == 0 {
			return core.Required(field + ".subnetworks")
		}
		if nat.GetSourceSubnetworkIpRangesToNat() != "LIST_OF_SUBNETWORKS" && len(nat.Subnetworks) > 0 {
			return core.InvalidField(field+".subnetworks", "", "Subnetworks may only be listed with LIST_OF_SUBNETWORKS.")
		}
		for j, sn := range nat.Subnetworks {
			key := resolveRef(project, "regions/"+region, "subnetworks", sn.GetName())
			var sub computepb.Subnetwork
			if ok, _ := s.Store.Get(KindSubnetworks, key, &sub); !ok {
				return core.NotFound(key)
			}
			if core.RelativePath(sub.GetNetwork()) != netKey {
				return core.InvalidField(fmt.Sprintf("%s.subnetworks[%d].name", field, j), sn.GetName(), "The subnetwork is not in the router's network.")
			}
			sn.Name = sub.SelfLink
			if len(sn.SourceIpRangesToNat) == 0 {
				sn.SourceIpRangesToNat = []string{"ALL_IP_RANGES"}
			}
		}
		if nat.EnableEndpointIndependentMapping == nil {
			nat.EnableEndpointIndependentMapping = proto.Bool(false)
		}
		if nat.EndpointTypes == nil {
			nat.EndpointTypes = []string{"ENDPOINT_TYPE_VM"}
		}
	}
	return nil
}

func (s *Service) insertRouter(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	region, ok := s.region(w, r)
	if !ok {
		return
	}
	var rt computepb.Router
	if !decode(w, r, &rt) {
		return
	}
	if e := core.ValidateName("resource.name", rt.GetName()); e != nil {
		fail(w, r, e)
		return
	}
	key := routerKey(project, region, rt.GetName())
	if s.Store.Exists(KindRouters, key) {
		fail(w, r, core.AlreadyExists(key))
		return
	}
	if rt.GetNetwork() == "" {
		fail(w, r, core.Required("resource.network"))
		return
	}
	netKey, network, e := s.lookupNetwork(project, rt.GetNetwork())
	if e != nil {
		fail(w, r, e)
		return
	}
	if network.GetNetworkProfile() != "" {
		fail(w, r, core.InvalidField("resource.network", rt.GetNetwork(),
			"Cloud Router is blocked by the network profile '"+lastSegment(network.GetNetworkProfile())+"' of this network."))
		return
	}
	if e := s.validateRouter(&rt, project, region, netKey); e != nil {
		fail(w, r, e)
		return
	}
	rt.Network = network.SelfLink
	id, created, self := s.newMeta(KindRouters, key)
	rt.Kind = proto.String("compute#router")
	if rt.Description == nil {
		rt.Description = proto.String("") // Compute answers an empty description
	}
	rt.Id = proto.Uint64(id)
	rt.CreationTimestamp = proto.String(created)
	rt.SelfLink = proto.String(self)
	rt.Region = proto.String(core.SelfLink("projects/" + project + "/regions/" + region))
	answerOp(w, s.opFor(r, key, "insert", id, func(tx *core.Tx, _ *computepb.Operation) error {
		if tx.Exists(KindRouters, key) {
			return core.OpAlreadyExists(key)
		}
		if !tx.Exists(KindNetworks, netKey) {
			return core.OpNotFound(netKey)
		}
		return tx.Put(KindRouters, key, &rt)
	}))
}

func (s *Service) deleteRouter(w http.ResponseWriter, r *http.Request) {
	region, ok := s.region(w, r)
	if !ok {
		return
	}
	key := routerKey(r.PathValue("project"), region, r.PathValue("router"))
	var rt computepb.Router
	if ok, _ := s.Store.Get(KindRouters, key, &rt); !ok {
		fail(w, r, core.NotFound(key))
		return
	}
	answerOp(w, s.opFor(r, key, "delete", rt.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		if !tx.Delete(KindRouters, key) {
			return core.OpNotFound(key)
		}
		return nil
	}))
}

// changeRouter serves patch (merge; nats and other lists replace) and update (the body replaces the router).
func (s *Service) changeRouter(w http.ResponseWriter, r *http.Request, patch bool) {
	project := r.PathValue("project")
	region, ok := s.region(w, r)
	if !ok {
		return
	}
	key := routerKey(project, region, r.PathValue("router"))
	old, ok := s.Store.GetRaw(KindRouters, key)
	if !ok {
		fail(w, r, core.NotFound(key))
		return
	}
	var body json.RawMessage
	if e := core.ReadJSON(r, &body); e != nil {
		fail(w, r, e)
		return
	}
	var probe computepb.Router
	if e := core.ReadJSONBytes(body, &probe); e != nil {
		fail(w, r, e)
		return
	}
	var before computepb.Router
	_ = core.Decode(old, &before)
	after := &computepb.Router{}
	if patch {
		merged, err := core.MergePatch(old, body)
		if err != nil {
			fail(w, r, core.Invalid("Invalid JSON payload received. "+err.Error()))
			return
		}
		_ = core.Decode(merged, after)
	} else {
		after = proto.Clone(&probe).(*computepb.Router)
		if after.Name == nil {
			after.Name = before.Name
		}
		if after.Network == nil {
			after.Network = before.Network
		}
	}
	if after.GetName() != before.GetName() {
		fail(w, r, core.InvalidField("resource.name", after.GetName(), "The name of a router cannot be changed."))
		return
	}
	netKey := core.RelativePath(before.GetNetwork())
	if resolveRef(project, "global", "networks", after.GetNetwork()) != netKey {
		fail(w, r, core.InvalidField("resource.network", after.GetNetwork(), "The network of a router cannot be changed."))
		return
	}
	if e := s.validateRouter(after, project, region, netKey); e != nil {
		fail(w, r, e)
		return
	}
	after.Kind, after.Id, after.CreationTimestamp, after.SelfLink, after.Region, after.Network = before.Kind, before.Id, before.CreationTimestamp, before.SelfLink, before.Region, before.Network
	opType := "update"
	if patch {
		opType = "patch"
	}
	answerOp(w, s.opFor(r, key, opType, before.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		if !tx.Exists(KindRouters, key) {
			return core.OpNotFound(key)
		}
		return tx.Put(KindRouters, key, after)
	}))
}
