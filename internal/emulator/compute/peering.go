package compute

import (
	"net/http"
	"slices"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// VPC Network Peering between two networks of the emulator: each side adds its own peering; a side shows
// ACTIVE once the other side has a peering back, INACTIVE otherwise (Google's "Waiting for peer network to
// connect.").

func init() { addRoutes(peeringRoutes) }

func peeringRoutes(s *Service) {
	p := prefix + "/global/networks/{network}"
	s.handle("POST "+p+"/addPeering", "compute.networks.addPeering", core.Mutating, s.addPeering)
	s.handle("POST "+p+"/removePeering", "compute.networks.removePeering", core.Mutating, s.removePeering)
}

// peeringRequest decodes a peering call's body into req and loads the network it is made on, answering the
// error itself when either fails.
func (s *Service) peeringRequest(w http.ResponseWriter, r *http.Request, req proto.Message) (project, key string, n *computepb.Network, ok bool) {
	project = r.PathValue("project")
	key = networkKey(project, r.PathValue("network"))
	if !decode(w, r, req) {
		return "", "", nil, false
	}
	n = &computepb.Network{}
	if found, _ := s.Store.Get(KindNetworks, key, n); !found {
		fail(w, r, core.NotFound(key))
		return "", "", nil, false
	}
	return project, key, n, true
}

func (s *Service) addPeering(w http.ResponseWriter, r *http.Request) {
	var req computepb.NetworksAddPeeringRequest
	project, key, n, ok := s.peeringRequest(w, r, &req)
	if !ok {
		return
	}
	// The current form nests the settings in networkPeering; the older top-level fields still work.
	peer := req.GetNetworkPeering()
	if peer == nil {
		peer = &computepb.NetworkPeering{Name: req.Name, Network: req.PeerNetwork}
	} else {
		peer = proto.Clone(peer).(*computepb.NetworkPeering)
	}
	if peer.Name == nil {
		peer.Name = req.Name
	}
	if e := core.ValidateName("networksAddPeeringRequest.name", peer.GetName()); e != nil {
		fail(w, r, e)
		return
	}
	if peer.GetNetwork() == "" {
		fail(w, r, core.Required("networksAddPeeringRequest.networkPeering.network"))
		return
	}
	peerKey := resolveRef(project, "global", "networks", peer.GetNetwork())
	var other computepb.Network
	if ok, _ := s.Store.Get(KindNetworks, peerKey, &other); !ok {
		fail(w, r, core.NotFound(peerKey))
		return
	}
	if peerKey == key {
		fail(w, r, core.InvalidField("networksAddPeeringRequest.networkPeering.network", peer.GetNetwork(), "A network cannot peer with itself."))
		return
	}
	for _, p := range n.GetPeerings() {
		if p.GetName() == peer.GetName() {
			fail(w, r, core.InvalidField("networksAddPeeringRequest.name", peer.GetName(), "A peering with this name already exists in the network."))
			return
		}
		if core.RelativePath(p.GetNetwork()) == peerKey {
			fail(w, r, core.BadRequest("invalid", "There is already a peering "+p.GetName()+" between "+key+" and "+peerKey+"."))
			return
		}
	}
	peer.Network = other.SelfLink
	fillPeering(peer, &other)
	answerOp(w, s.opFor(r, key, "addPeering", n.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		var cur, remote computepb.Network
		if ok, _ := tx.Get(KindNetworks, key, &cur); !ok {
			return core.OpNotFound(key)
		}
		if ok, _ := tx.Get(KindNetworks, peerKey, &remote); !ok {
			return core.OpNotFound(peerKey)
		}
		p := proto.Clone(peer).(*computepb.NetworkPeering)
		back := peeringTo(&remote, cur.GetSelfLink())
		setPeeringState(p, back != nil, s.Now())
		cur.Peerings = append(cur.Peerings, p)
		if back != nil {
			setPeeringState(back, true, s.Now())
			if err := tx.Put(KindNetworks, peerKey, &remote); err != nil {
				return err
			}
		}
		return tx.Put(KindNetworks, key, &cur)
	}))
}

func (s *Service) removePeering(w http.ResponseWriter, r *http.Request) {
	var req computepb.NetworksRemovePeeringRequest
	_, key, n, ok := s.peeringRequest(w, r, &req)
	if !ok {
		return
	}
	i := slices.IndexFunc(n.GetPeerings(), func(p *computepb.NetworkPeering) bool { return p.GetName() == req.GetName() })
	if i < 0 {
		fail(w, r, core.NotFound(key+"/peerings/"+req.GetName()))
		return
	}
	peerKey := core.RelativePath(n.GetPeerings()[i].GetNetwork())
	answerOp(w, s.opFor(r, key, "removePeering", n.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		var cur computepb.Network
		if ok, _ := tx.Get(KindNetworks, key, &cur); !ok {
			return core.OpNotFound(key)
		}
		cur.Peerings = slices.DeleteFunc(cur.Peerings, func(p *computepb.NetworkPeering) bool { return p.GetName() == req.GetName() })
		var remote computepb.Network
		if ok, _ := tx.Get(KindNetworks, peerKey, &remote); ok {
			if back := peeringTo(&remote, cur.GetSelfLink()); back != nil {
				setPeeringState(back, false, s.Now())
				if err := tx.Put(KindNetworks, peerKey, &remote); err != nil {
					return err
				}
			}
		}
		return tx.Put(KindNetworks, key, &cur)
	}))
}

// fillPeering sets the defaults Compute reports on a new peering.
func fillPeering(p *computepb.NetworkPeering, remote *computepb.Network) {
	if p.ExchangeSubnetRoutes == nil {
		p.ExchangeSubnetRoutes = proto.Bool(true)
	}
	p.AutoCreateRoutes = proto.Bool(true)
	for _, b := range []**bool{&p.ExportCustomRoutes, &p.ImportCustomRoutes, &p.ImportSubnetRoutesWithPublicIp} {
		if *b == nil {
			*b = proto.Bool(false)
		}
	}
	if p.ExportSubnetRoutesWithPublicIp == nil {
		p.ExportSubnetRoutesWithPublicIp = proto.Bool(true)
	}
	if p.StackType == nil {
		p.StackType = proto.String("IPV4_ONLY")
	}
	p.PeerMtu = proto.Int32(effectiveMTU(remote))
}

func peeringTo(n *computepb.Network, selfLink string) *computepb.NetworkPeering {
	for _, p := range n.GetPeerings() {
		if core.RelativePath(p.GetNetwork()) == core.RelativePath(selfLink) {
			return p
		}
	}
	return nil
}

func setPeeringState(p *computepb.NetworkPeering, active bool, now time.Time) {
	if active {
		p.State = proto.String("ACTIVE")
		p.StateDetails = proto.String("[" + core.RFC3339(now) + "]: Connected.")
		return
	}
	p.State = proto.String("INACTIVE")
	p.StateDetails = proto.String("[" + core.RFC3339(now) + "]: Waiting for peer network to connect.")
}
