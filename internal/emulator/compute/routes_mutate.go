package compute

import (
	"fmt"
	"net/http"
	"net/netip"
	"sort"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// KindRoutes holds the routes users create (projects/P/global/routes/N); the system routes of networks and
// subnets are derived on read (routes.go) and listed with them.
const KindRoutes = "compute.routes"

// A network with custom routes cannot be deleted: KindRoutes is one of networkUserKinds.
func init() { addRoutes(routeMutationRoutes) }

func routeMutationRoutes(s *Service) {
	s.handle("POST "+prefix+"/global/routes", "compute.routes.insert", core.Mutating, s.insertRoute)
	s.handle("DELETE "+prefix+"/global/routes/{route}", "compute.routes.delete", core.Mutating, s.deleteRoute)
}

// allRoutes is what routes.list serves: the system routes and the stored ones, in key order.
func (s *Service) allRoutes(project string) []core.Record {
	recs := append(s.systemRoutes(project), s.Store.List(KindRoutes, "projects/"+project+"/global/routes/")...)
	sort.Slice(recs, func(i, j int) bool { return recs[i].Key < recs[j].Key })
	return recs
}

func (s *Service) isSystemRoute(project, key string) bool {
	for _, rec := range s.systemRoutes(project) {
		if rec.Key == key {
			return true
		}
	}
	return false
}

func (s *Service) insertRoute(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	var rt computepb.Route
	if !decode(w, r, &rt) {
		return
	}
	if e := core.ValidateName("resource.name", rt.GetName()); e != nil {
		fail(w, r, e)
		return
	}
	key := "projects/" + project + "/global/routes/" + rt.GetName()
	if s.Store.Exists(KindRoutes, key) || s.isSystemRoute(project, key) {
		fail(w, r, core.AlreadyExists(key))
		return
	}
	if rt.GetNetwork() == "" {
		fail(w, r, core.Required("resource.network"))
		return
	}
	netKey := resolveRef(project, "global", "networks", rt.GetNetwork())
	if !s.Store.Exists(KindNetworks, netKey) {
		fail(w, r, core.NotFound(netKey))
		return
	}
	if rt.GetDestRange() == "" {
		fail(w, r, core.Required("resource.destRange"))
		return
	}
	dest, err := netip.ParsePrefix(rt.GetDestRange())
	if err != nil || dest.Masked() != dest {
		fail(w, r, core.InvalidField("resource.destRange", rt.GetDestRange(), "Must be a CIDR range with no host bits set."))
		return
	}
	hops := map[string]string{"nextHopGateway": rt.GetNextHopGateway(), "nextHopIp": rt.GetNextHopIp(), "nextHopInstance": rt.GetNextHopInstance(),
		"nextHopVpnTunnel": rt.GetNextHopVpnTunnel(), "nextHopIlb": rt.GetNextHopIlb()}
	var set []string
	for f, v := range hops {
		if v != "" {
			set = append(set, f)
		}
	}
	if len(set) != 1 {
		sort.Strings(set)
		fail(w, r, core.Invalid(fmt.Sprintf("Invalid value for field 'resource': exactly one of nextHopGateway, nextHopIp, nextHopInstance, nextHopVpnTunnel or nextHopIlb must be set (got %d: %s).", len(set), strings.Join(set, ", "))))
		return
	}
	if e := s.resolveNextHop(project, &rt); e != nil {
		fail(w, r, e)
		return
	}
	if rt.Priority == nil {
		rt.Priority = proto.Uint32(1000)
	} else if rt.GetPriority() > 65535 {
		fail(w, r, core.InvalidField("resource.priority", fmt.Sprint(rt.GetPriority()), "Must be between 0 and 65535."))
		return
	}
	id, created, self := s.newMeta("compute#route", key)
	rt.Kind = proto.String("compute#route")
	rt.Id, rt.CreationTimestamp, rt.SelfLink = proto.Uint64(id), proto.String(created), proto.String(self)
	rt.Network = proto.String(core.SelfLink(netKey))
	rt.RouteType = proto.String("STATIC")
	if rt.Description == nil {
		rt.Description = proto.String("")
	}
	answerOp(w, s.opFor(r, key, "insert", id, func(tx *core.Tx, _ *computepb.Operation) error {
		if tx.Exists(KindRoutes, key) {
			return core.OpAlreadyExists(key)
		}
		if !tx.Exists(KindNetworks, netKey) {
			return core.OpNotFound(netKey)
		}
		return tx.Put(KindRoutes, key, &rt)
	}))
}

// resolveNextHop checks and expands the route's next hop: the only gateway is default-internet-gateway, an
// instance must exist, a next-hop IP must be an address.
func (s *Service) resolveNextHop(project string, rt *computepb.Route) *core.APIError {
	switch {
	case rt.GetNextHopGateway() != "":
		gw := resolveRef(project, "global", "gateways", rt.GetNextHopGateway())
		if lastSegment(gw) != "default-internet-gateway" {
			return core.InvalidField("resource.nextHopGateway", rt.GetNextHopGateway(), "The only supported gateway is 'default-internet-gateway'.")
		}
		rt.NextHopGateway = proto.String(core.SelfLink(gw))
	case rt.GetNextHopIp() != "":
		if _, err := netip.ParseAddr(rt.GetNextHopIp()); err != nil {
			return core.InvalidField("resource.nextHopIp", rt.GetNextHopIp(), "Must be an IP address.")
		}
	case rt.GetNextHopInstance() != "":
		rel := core.RelativePath(rt.GetNextHopInstance())
		if !strings.HasPrefix(rel, "projects/") {
			rel = "projects/" + project + "/" + rel
		}
		if !s.Store.Exists("compute.instances", rel) {
			return core.NotFound(rel)
		}
		rt.NextHopInstance = proto.String(core.SelfLink(rel))
	}
	return nil
}

func (s *Service) deleteRoute(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	key := "projects/" + project + "/global/routes/" + r.PathValue("route")
	var rt computepb.Route
	if ok, _ := s.Store.Get(KindRoutes, key, &rt); !ok {
		if s.isSystemRoute(project, key) {
			// The emulator derives system routes from networks and subnets; they go away with those.
			fail(w, r, core.BadRequest("invalid", fmt.Sprintf("The route '%s' is generated for a network or subnetwork and is deleted with it.", key)))
			return
		}
		fail(w, r, core.NotFound(key))
		return
	}
	answerOp(w, s.opFor(r, key, "delete", rt.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		if !tx.Exists(KindRoutes, key) {
			return core.OpNotFound(key)
		}
		tx.Delete(KindRoutes, key)
		return nil
	}))
}
