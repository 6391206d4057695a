package compute

import (
	"fmt"
	"hash/fnv"
	"net/http"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// The routes a network gets by itself: the default route to the Internet (0.0.0.0/0 via the
// default-internet-gateway, priority 1000) and one local route per subnet range (priority 0). They are derived
// from the networks and subnetworks in the store on every read, so they come and go with them, as Google's do.

func init() { addRoutes(routeRoutes) }

func routeRoutes(s *Service) {
	s.handle("GET "+prefix+"/global/routes", "compute.routes.list", core.Read, func(w http.ResponseWriter, r *http.Request) {
		project := r.PathValue("project")
		items, next, err := core.Page(r, s.allRoutes(project))
		if err != nil {
			fail(w, r, err)
			return
		}
		core.WriteJSON(w, http.StatusOK, listBody("compute#routeList", "projects/"+project+"/global/routes", items, next))
	})
	s.handle("GET "+prefix+"/global/routes/{route}", "compute.routes.get", core.Read, func(w http.ResponseWriter, r *http.Request) {
		key := "projects/" + r.PathValue("project") + "/global/routes/" + r.PathValue("route")
		for _, rec := range s.allRoutes(r.PathValue("project")) {
			if rec.Key == key {
				core.WriteJSON(w, http.StatusOK, rec.JSON)
				return
			}
		}
		fail(w, r, core.NotFound(key))
	})
}

// routeName is Compute's generated name for a system route: "default-route-" and 16 hex digits, stable for
// the network and destination.
func routeName(networkKey, dest string) string {
	h := fnv.New64a()
	h.Write([]byte(networkKey + "|" + dest))
	return fmt.Sprintf("default-route-%016x", h.Sum64())
}

func (s *Service) systemRoutes(project string) []core.Record {
	var routes []*computepb.Route
	add := func(networkKey string, n *computepb.Network, dest, description, routeType string, priority uint32, created string) *computepb.Route {
		name := routeName(networkKey, dest)
		key := "projects/" + project + "/global/routes/" + name
		rt := &computepb.Route{
			Kind:              proto.String("compute#route"),
			Id:                proto.Uint64(catalogID(key)),
			CreationTimestamp: proto.String(created),
			Name:              proto.String(name),
			Description:       proto.String(description),
			Network:           n.SelfLink,
			DestRange:         proto.String(dest),
			Priority:          proto.Uint32(priority),
			SelfLink:          proto.String(core.SelfLink(key)),
			RouteType:         proto.String(routeType),
		}
		routes = append(routes, rt)
		return rt
	}
	for _, rec := range s.Store.List(KindNetworks, "projects/"+project+"/global/networks/") {
		var n computepb.Network
		if rec.Decode(&n) != nil {
			continue
		}
		rt := add(rec.Key, &n, "0.0.0.0/0", "Default route to the Internet.", "STATIC", 1000, n.GetCreationTimestamp())
		rt.NextHopGateway = proto.String(core.SelfLink("projects/" + project + "/global/gateways/default-internet-gateway"))
	}
	for _, rec := range s.Store.List(KindSubnetworks, "projects/"+project+"/regions/") {
		var sub computepb.Subnetwork
		if rec.Decode(&sub) != nil {
			continue
		}
		netKey := core.RelativePath(sub.GetNetwork())
		var n computepb.Network
		if ok, _ := s.Store.Get(KindNetworks, netKey, &n); !ok {
			continue
		}
		ranges := []string{sub.GetIpCidrRange()}
		for _, sr := range sub.GetSecondaryIpRanges() {
			ranges = append(ranges, sr.GetIpCidrRange())
		}
		for _, cidr := range ranges {
			rt := add(netKey, &n, cidr, "Default local route to the subnetwork "+cidr+".", "SUBNET", 0, sub.GetCreationTimestamp())
			rt.NextHopNetwork = n.SelfLink
		}
	}
	keys := make([]string, len(routes))
	msgs := make([]proto.Message, len(routes))
	for i, rt := range routes {
		keys[i], msgs[i] = core.RelativePath(rt.GetSelfLink()), rt
	}
	return asRecords(keys, msgs)
}
