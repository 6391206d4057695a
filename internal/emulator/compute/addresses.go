package compute

import (
	"fmt"
	"net/http"
	"net/netip"
	"strconv"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

func init() { addRoutes(addressRoutes) }

func addressRoutes(s *Service) {
	g := prefix + "/global/addresses"
	s.handle("POST "+g, "compute.globalAddresses.insert", core.Mutating, s.insertAddress)
	s.handle("GET "+g, "compute.globalAddresses.list", core.Read, func(w http.ResponseWriter, r *http.Request) {
		s.list(w, r, "compute#addressList", KindGlobalAddresses, globalAddressKey(r.PathValue("project"), ""))
	})
	s.handle("GET "+g+"/{address}", "compute.globalAddresses.get", core.Read, func(w http.ResponseWriter, r *http.Request) {
		s.getNamed(w, r, KindGlobalAddresses, globalAddressKey(r.PathValue("project"), r.PathValue("address")))
	})
	s.handle("DELETE "+g+"/{address}", "compute.globalAddresses.delete", core.Mutating, s.deleteAddress)
	s.handle("POST "+g+"/{resource}/setLabels", "compute.globalAddresses.setLabels", core.Mutating, s.setAddressLabels)

	rg := prefix + "/regions/{region}/addresses"
	s.handle("POST "+rg, "compute.addresses.insert", core.Mutating, s.insertAddress)
	s.handle("GET "+rg, "compute.addresses.list", core.Read, func(w http.ResponseWriter, r *http.Request) {
		if region, ok := s.region(w, r); ok {
			s.list(w, r, "compute#addressList", KindAddresses, regionalAddressKey(r.PathValue("project"), region, ""))
		}
	})
	s.handle("GET "+rg+"/{address}", "compute.addresses.get", core.Read, func(w http.ResponseWriter, r *http.Request) {
		if region, ok := s.region(w, r); ok {
			s.getNamed(w, r, KindAddresses, regionalAddressKey(r.PathValue("project"), region, r.PathValue("address")))
		}
	})
	s.handle("DELETE "+rg+"/{address}", "compute.addresses.delete", core.Mutating, s.deleteAddress)
	s.handle("POST "+rg+"/{resource}/setLabels", "compute.addresses.setLabels", core.Mutating, s.setAddressLabels)
}

func globalAddressKey(project, name string) string {
	return "projects/" + project + "/global/addresses/" + name
}

func regionalAddressKey(project, region, name string) string {
	return "projects/" + project + "/regions/" + region + "/addresses/" + name
}

// addressScope returns the store kind and key for the address a request names ("" region for global).
func (s *Service) addressScope(w http.ResponseWriter, r *http.Request, name string) (kind, key, region string, ok bool) {
	project := r.PathValue("project")
	if r.PathValue("region") == "" {
		return KindGlobalAddresses, globalAddressKey(project, name), "", true
	}
	region, ok = s.region(w, r)
	if !ok {
		return "", "", "", false
	}
	return KindAddresses, regionalAddressKey(project, region, name), region, true
}

func (s *Service) insertAddress(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	var a computepb.Address
	if !decode(w, r, &a) {
		return
	}
	if e := core.ValidateName("resource.name", a.GetName()); e != nil {
		fail(w, r, e)
		return
	}
	kind, key, region, ok := s.addressScope(w, r, a.GetName())
	if !ok {
		return
	}
	if s.Store.Exists(kind, key) {
		fail(w, r, core.AlreadyExists(key))
		return
	}
	if a.AddressType == nil {
		a.AddressType = proto.String("EXTERNAL")
	}
	netKey, subKey := "", ""
	switch a.GetAddressType() {
	case "EXTERNAL":
		if a.Network != nil || a.Subnetwork != nil {
			fail(w, r, core.InvalidField("resource.network", a.GetNetwork(), "An EXTERNAL address cannot name a network or subnetwork."))
			return
		}
		a.NetworkTier = proto.String("PREMIUM")
	case "INTERNAL":
		if region == "" {
			switch a.GetPurpose() {
			case "VPC_PEERING":
				if a.PrefixLength == nil {
					fail(w, r, core.Required("resource.prefixLength"))
					return
				}
				if pl := a.GetPrefixLength(); pl < 8 || pl > 29 {
					fail(w, r, core.InvalidField("resource.prefixLength", strconv.Itoa(int(pl)), "Must be between 8 and 29."))
					return
				}
			case "PRIVATE_SERVICE_CONNECT":
				a.PrefixLength = nil
			default:
				fail(w, r, core.InvalidField("resource.purpose", a.GetPurpose(), "A global INTERNAL address needs purpose VPC_PEERING or PRIVATE_SERVICE_CONNECT."))
				return
			}
			if a.GetNetwork() == "" {
				fail(w, r, core.Required("resource.network"))
				return
			}
			k, network, e := s.lookupNetwork(project, a.GetNetwork())
			if e != nil {
				fail(w, r, e)
				return
			}
			if network.GetNetworkProfile() != "" && a.GetPurpose() == "VPC_PEERING" {
				fail(w, r, core.InvalidField("resource.network", a.GetNetwork(),
					"VPC peering is blocked by the network profile '"+lastSegment(network.GetNetworkProfile())+"' of this network."))
				return
			}
			netKey, a.Network = k, network.SelfLink
		} else {
			if a.GetSubnetwork() == "" {
				k, e := s.defaultSubnet(project, region, a.GetNetwork())
				if e != nil {
					fail(w, r, e)
					return
				}
				a.Subnetwork = proto.String(k)
			}
			subKey = resolveRef(project, "regions/"+region, "subnetworks", a.GetSubnetwork())
			var sub computepb.Subnetwork
			if ok, _ := s.Store.Get(KindSubnetworks, subKey, &sub); !ok {
				fail(w, r, core.NotFound(subKey))
				return
			}
			a.Subnetwork, a.Network = sub.SelfLink, nil
			if a.Purpose == nil {
				a.Purpose = proto.String("GCE_ENDPOINT")
			}
		}
	default:
		fail(w, r, core.InvalidField("resource.addressType", a.GetAddressType(), "Must be EXTERNAL or INTERNAL."))
		return
	}
	if a.Address != nil {
		if _, err := netip.ParseAddr(a.GetAddress()); err != nil {
			fail(w, r, core.InvalidField("resource.address", a.GetAddress(), "Must be an IPv4 address."))
			return
		}
	}
	if a.IpVersion == nil {
		a.IpVersion = proto.String("IPV4")
	}
	id, created, self := s.newMeta(kind, key)
	a.Kind = proto.String("compute#address")
	if a.Description == nil {
		a.Description = proto.String("") // Compute answers an empty description
	}
	a.Id = proto.Uint64(id)
	a.CreationTimestamp = proto.String(created)
	a.SelfLink = proto.String(self)
	a.Status = proto.String("RESERVED")
	a.LabelFingerprint = proto.String(core.Fingerprint(fmt.Sprint(a.Labels)))
	if region != "" {
		a.Region = proto.String(core.SelfLink("projects/" + project + "/regions/" + region))
	}
	// Allocation happens at completion, under the store lock, so concurrent inserts never get the same range.
	answerOp(w, s.opFor(r, key, "insert", id, func(tx *core.Tx, _ *computepb.Operation) error {
		if tx.Exists(kind, key) {
			return core.OpAlreadyExists(key)
		}
		if err := allocateAddress(tx, &a, kind, netKey, subKey); err != nil {
			return err
		}
		return tx.Put(kind, key, &a)
	}))
}

func (s *Service) deleteAddress(w http.ResponseWriter, r *http.Request) {
	kind, key, _, ok := s.addressScope(w, r, r.PathValue("address"))
	if !ok {
		return
	}
	var a computepb.Address
	if ok, _ := s.Store.Get(kind, key, &a); !ok {
		fail(w, r, core.NotFound(key))
		return
	}
	answerOp(w, s.opFor(r, key, "delete", a.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		if !tx.Exists(kind, key) {
			return core.OpNotFound(key)
		}
		if user := guardDelete(tx, kind, key); user != "" {
			return core.OpResourceInUse(key, user)
		}
		tx.Delete(kind, key)
		return nil
	}))
}

func (s *Service) setAddressLabels(w http.ResponseWriter, r *http.Request) {
	kind, key, _, ok := s.addressScope(w, r, r.PathValue("resource"))
	if !ok {
		return
	}
	var a computepb.Address
	if ok, _ := s.Store.Get(kind, key, &a); !ok {
		fail(w, r, core.NotFound(key))
		return
	}
	var req computepb.GlobalSetLabelsRequest
	if !decode(w, r, &req) {
		return
	}
	if req.GetLabelFingerprint() != a.GetLabelFingerprint() {
		fail(w, r, core.ConditionNotMet("Labels fingerprint either invalid or resource labels have changed"))
		return
	}
	answerOp(w, s.opFor(r, key, "setLabels", a.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		var cur computepb.Address
		if ok, _ := tx.Get(kind, key, &cur); !ok {
			return core.OpNotFound(key)
		}
		if cur.GetLabelFingerprint() != req.GetLabelFingerprint() {
			return core.NewOpError(412, "CONDITION_NOT_MET", "Labels fingerprint either invalid or resource labels have changed")
		}
		cur.Labels = req.Labels
		cur.LabelFingerprint = proto.String(s.newFingerprint())
		return tx.Put(kind, key, &cur)
	}))
}

// defaultSubnet is the subnetwork a regional INTERNAL address without one goes to, as Compute picks it: the
// network's (the default network when none is named) subnet in the region — the one named after the network
// for an auto-mode network, otherwise the first by name.
func (s *Service) defaultSubnet(project, region, networkRef string) (string, *core.APIError) {
	netKey, n, e := s.lookupNetwork(project, networkRef)
	if e != nil {
		return "", e
	}
	var found []string
	for _, rec := range s.Store.List(KindSubnetworks, "projects/"+project+"/regions/"+region+"/subnetworks/") {
		var sub computepb.Subnetwork
		if rec.Decode(&sub) == nil && core.RelativePath(sub.GetNetwork()) == netKey {
			if sub.GetName() == n.GetName() {
				return rec.Key, nil
			}
			found = append(found, rec.Key)
		}
	}
	if len(found) == 0 {
		return "", core.BadRequest("invalid", fmt.Sprintf("The network '%s' has no subnetwork in region '%s'.", netKey, region))
	}
	return found[0], nil
}
