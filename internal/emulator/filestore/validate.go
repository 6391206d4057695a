package filestore

import (
	"strings"

	"cloud.google.com/go/filestore/apiv1/filestorepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/producer"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/servicenetworking"
)

// maxDescription is the API's limit on Instance.description.
const maxDescription = 2048

// tierOf resolves the instance's tier through the catalog (legacy STANDARD/PREMIUM included).
func tierOf(inst *filestorepb.Instance) (catalog.FilestoreTier, *core.APIError) {
	if inst.GetTier() == filestorepb.Instance_TIER_UNSPECIFIED {
		return catalog.FilestoreTier{}, badRequest("instance.tier: a service tier is required (one of %v).", catalog.FilestoreTierNames())
	}
	t, ok := catalog.FilestoreTierByName(inst.GetTier().String())
	if !ok {
		return t, badRequest("instance.tier: tier %s is not supported (one of %v).", inst.GetTier(), catalog.FilestoreTierNames())
	}
	return t, nil
}

// newInstance is a create request, checked and resolved.
type newInstance struct {
	inst    *filestorepb.Instance
	tier    catalog.FilestoreTier
	network servicenetworking.NetworkRef
}

// validateCreate applies every synchronous rule of instances.create and returns the 400 naming the first bad
// field.
func (s *Service) validateCreate(project, location, id string, inst *filestorepb.Instance) (*newInstance, *core.APIError) {
	if id == "" {
		return nil, badRequest("instance_id: an instance ID is required.")
	}
	if !catalog.IsValidResourceName(id) {
		return nil, badRequest("instance_id: '%s' is invalid: it must be 1-63 characters, start with a lowercase letter, and contain only lowercase letters, digits and hyphens, ending with a letter or digit.", id)
	}
	tier, err := tierOf(inst)
	if err != nil {
		return nil, err
	}
	if e := catalog.ValidateFilestoreLocation(tier.Name, location); e != nil {
		return nil, badRequest("parent: location '%s': %v.", location, e)
	}
	if len(inst.GetDescription()) > maxDescription {
		return nil, badRequest("instance.description: must be at most %d characters, got %d.", maxDescription, len(inst.GetDescription()))
	}
	if err := producer.ValidateLabels("instance.labels", inst.GetLabels()); err != nil {
		return nil, err
	}
	if n := len(inst.GetFileShares()); n != 1 {
		return nil, badRequest("instance.file_shares: exactly one file share is required, got %d.", n)
	}
	share := inst.GetFileShares()[0]
	if e := catalog.ValidateFilestoreShareName(tier.Name, share.GetName()); e != nil {
		return nil, badRequest("instance.file_shares[0].name: %v.", e)
	}
	if e := catalog.ValidateFilestoreCapacity(tier.Name, share.GetCapacityGb()); e != nil {
		return nil, badRequest("instance.file_shares[0].capacity_gb: %v.", e)
	}
	if share.GetSourceBackup() != "" {
		return nil, badRequest("instance.file_shares[0].source_backup: restoring from a backup is not supported by the emulator.")
	}
	protocol := ""
	if p := inst.GetProtocol(); p != filestorepb.Instance_FILE_PROTOCOL_UNSPECIFIED {
		protocol = p.String()
	}
	if e := catalog.ValidateFilestoreProtocol(tier.Name, protocol); e != nil {
		return nil, badRequest("instance.protocol: %v.", e)
	}
	if inst.GetDeletionProtectionReason() != "" && !inst.GetDeletionProtectionEnabled() {
		return nil, badRequest("instance.deletion_protection_reason: can only be set when deletion_protection_enabled is true.")
	}
	net, err := s.validateNetwork(project, tier, inst)
	if err != nil {
		return nil, err
	}
	return &newInstance{inst: inst, tier: tier, network: net}, nil
}

func (s *Service) validateNetwork(project string, tier catalog.FilestoreTier, inst *filestorepb.Instance) (servicenetworking.NetworkRef, *core.APIError) {
	var none servicenetworking.NetworkRef
	if n := len(inst.GetNetworks()); n != 1 {
		return none, badRequest("instance.networks: exactly one network is required, got %d.", n)
	}
	nc := inst.GetNetworks()[0]
	if nc.GetNetwork() == "" {
		return none, badRequest("instance.networks[0].network: the VPC network is required.")
	}
	net, e := servicenetworking.ParseNetwork(s.Store, nc.GetNetwork(), project)
	if e != nil {
		return none, badRequest("instance.networks[0].network: %v.", e)
	}
	for _, m := range nc.GetModes() {
		if m != filestorepb.NetworkConfig_MODE_IPV4 {
			return none, badRequest("instance.networks[0].modes: only MODE_IPV4 is supported, got %s.", m)
		}
	}
	switch nc.GetConnectMode() {
	case filestorepb.NetworkConfig_CONNECT_MODE_UNSPECIFIED, filestorepb.NetworkConfig_DIRECT_PEERING:
		if !net.Exists(s.Store) {
			return none, badRequest("instance.networks[0].network: network '%s' does not exist.", net.Key())
		}
		if r := nc.GetReservedIpRange(); r != "" {
			if e := servicenetworking.CheckDirectRange(s.Store, net, r, tier.DirectPeeringPrefix); e != nil {
				return none, badRequest("instance.networks[0].reserved_ip_range: %v (connect mode DIRECT_PEERING, tier %s).", e, tier.Name)
			}
		}
	case filestorepb.NetworkConfig_PRIVATE_SERVICE_ACCESS:
		r := nc.GetReservedIpRange()
		if looksLikeCIDR(r) {
			return none, badRequest("instance.networks[0].reserved_ip_range: with connect mode PRIVATE_SERVICE_ACCESS it must name an allocated IP range of the private service connection, not a CIDR block ('%s').", r)
		}
		if err := servicenetworking.CheckPrivateServiceAccess(s.Store, net, r, "instance.networks[0].network", "instance.networks[0].reserved_ip_range"); err != nil {
			return none, err
		}
	default:
		return none, badRequest("instance.networks[0].connect_mode: %s is not supported (DIRECT_PEERING or PRIVATE_SERVICE_ACCESS).", nc.GetConnectMode())
	}
	return net, nil
}

func looksLikeCIDR(s string) bool { return strings.Contains(s, "/") }
