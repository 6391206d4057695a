package instances

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

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
