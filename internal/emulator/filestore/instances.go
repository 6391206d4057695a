package filestore

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/producer"
	sn "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/servicenetworking"
)

func (s *Service) createInstance(w http.ResponseWriter, r *http.Request) {
	project, location := r.PathValue("project"), r.PathValue("location")
	id := r.URL.Query().Get("instanceId")
	var in filestorepb.Instance
	if err := core.ReadJSON(r, &in); err != nil {
		fail(w, r, err)
		return
	}
	ni, verr := s.validateCreate(project, location, id, &in)
	if verr != nil {
		fail(w, r, verr)
		return
	}
	name := parent(r) + "/instances/" + id
	l, err := s.instances.StartCreate(r, name, s.initialInstance(name, ni), func(tx *core.Tx) (any, error) { return s.completeCreate(tx, name, ni) })
	if err != nil {
		fail(w, r, err)
		return
	}
	core.WriteJSON(w, http.StatusOK, l)
}

// initialInstance is the instance as it shows while CREATING: the request with defaults and the server's
// fields filled in, output-only fields the client sent dropped.
func (s *Service) initialInstance(name string, ni *newInstance) *filestorepb.Instance {
	inst := proto.Clone(ni.inst).(*filestorepb.Instance)
	inst.Name = name
	inst.State = filestorepb.Instance_CREATING
	inst.StatusMessage = ""
	inst.CreateTime = timestamppb.New(s.Now())
	inst.Etag = s.etag()
	inst.SuspensionReasons = nil
	inst.SatisfiesPzs = nil
	inst.SatisfiesPzi = false
	inst.PerformanceLimits = nil
	if inst.Protocol == filestorepb.Instance_FILE_PROTOCOL_UNSPECIFIED {
		inst.Protocol = filestorepb.Instance_NFS_V3
	}
	nc := inst.Networks[0]
	// Filestore answers the network by its short name when it is in the instance's project, whatever form
	// the request named it in; a network of another project (shared VPC) keeps its path.
	project, _ := nameParts(name)
	if ni.network.Project == project || ni.network.Project == core.ProjectNumber(project) {
		nc.Network = ni.network.Name
	} else {
		nc.Network = "projects/" + ni.network.Project + "/global/networks/" + ni.network.Name
	}
	if len(nc.Modes) == 0 {
		nc.Modes = []filestorepb.NetworkConfig_AddressMode{filestorepb.NetworkConfig_MODE_IPV4}
	}
	if nc.ConnectMode == filestorepb.NetworkConfig_CONNECT_MODE_UNSPECIFIED {
		nc.ConnectMode = filestorepb.NetworkConfig_DIRECT_PEERING
	}
	nc.IpAddresses = nil
	return inst
}

// completeCreate runs when the create operation ends: capacity check, IP block, backing directory, READY.
func (s *Service) completeCreate(tx *core.Tx, name string, ni *newInstance) (any, error) {
	inst, err := s.instances.Creating(tx, name)
	if err != nil {
		return nil, err
	}
	project, location := nameParts(name)
	if producer.StorageStockout(s.Faults, location, "filestore/"+ni.tier.Name) {
		return nil, producer.StockoutError(project, location)
	}
	nc := inst.Networks[0]
	req := sn.BlockRequest{Network: ni.network, Owner: name, Service: ProducerService, PrefixLength: ni.tier.DirectPeeringPrefix}
	var a sn.Allocation
	if nc.GetConnectMode() == filestorepb.NetworkConfig_PRIVATE_SERVICE_ACCESS {
		req.Range = nc.GetReservedIpRange()
		a, err = sn.AllocatePSA(tx, req)
	} else {
		a, err = sn.ReserveDirect(tx, req, nc.GetReservedIpRange())
	}
	if err != nil {
		return nil, err
	}
	if nc.ReservedIpRange == "" {
		nc.ReservedIpRange = a.CIDR
	}
	nc.IpAddresses = []string{a.Host(2)}
	inst.State = filestorepb.Instance_READY
	inst.Etag = s.etag()
	if err := s.backings.Current().Ensure(append(producer.InstanceDir(name), inst.FileShares[0].GetName())...); err != nil {
		return nil, err
	}
	return s.instances.Finish(tx, name, inst)
}

// updatable are the update_mask paths instances.patch accepts.
var updatable = []string{"description", "file_shares", "labels", "performance_config", "deletion_protection_enabled", "deletion_protection_reason"}

func (s *Service) patchInstance(w http.ResponseWriter, r *http.Request) {
	name, in, cur, paths, err := s.instances.ReadPatch(r, updatable)
	if err != nil {
		fail(w, r, err)
		return
	}
	want, verr := validatePatch(cur, in, paths)
	if verr != nil {
		fail(w, r, verr)
		return
	}
	l, err := s.instances.StartPatch(r, name, cur, func(now *filestorepb.Instance) {
		applyMask(now, want, paths)
		now.Etag = s.etag()
	})
	if err != nil {
		fail(w, r, err)
		return
	}
	core.WriteJSON(w, http.StatusOK, l)
}

// validatePatch checks every masked field of in against the current instance and returns cur with the
// change applied (the values to copy at completion).
func validatePatch(cur, in *filestorepb.Instance, paths []string) (*filestorepb.Instance, *core.APIError) {
	want := proto.Clone(cur).(*filestorepb.Instance)
	for _, p := range paths {
		switch p {
		case "description":
			if len(in.GetDescription()) > maxDescription {
				return nil, badRequest("instance.description: must be at most %d characters, got %d.", maxDescription, len(in.GetDescription()))
			}
		case "labels":
			if err := producer.ValidateLabels("instance.labels", in.GetLabels()); err != nil {
				return nil, err
			}
		case "file_shares":
			if err := validateShareChange(cur, in); err != nil {
				return nil, err
			}
		case "deletion_protection_enabled", "deletion_protection_reason", "performance_config":
		default:
			return nil, badRequest("update_mask: field '%s' cannot be updated; updatable fields are %s.", p, strings.Join(updatable, ", "))
		}
	}
	applyMask(want, in, paths)
	if want.GetDeletionProtectionReason() != "" && !want.GetDeletionProtectionEnabled() {
		return nil, badRequest("instance.deletion_protection_reason: can only be set when deletion_protection_enabled is true.")
	}
	return want, nil
}

func validateShareChange(cur, in *filestorepb.Instance) *core.APIError {
	if n := len(in.GetFileShares()); n != 1 {
		return badRequest("instance.file_shares: exactly one file share is required, got %d.", n)
	}
	old, nw := cur.GetFileShares()[0], in.GetFileShares()[0]
	if nw.GetName() != old.GetName() {
		return badRequest("instance.file_shares[0].name: the file share name cannot be changed (is '%s', requested '%s').", old.GetName(), nw.GetName())
	}
	if nw.GetCapacityGb() != old.GetCapacityGb() {
		if e := catalog.ValidateFilestoreResize(cur.GetTier().String(), old.GetCapacityGb(), nw.GetCapacityGb()); e != nil {
			return badRequest("instance.file_shares[0].capacity_gb: %v.", e)
		}
	}
	return nil
}

// applyMask copies the masked fields of src into dst.
func applyMask(dst, src *filestorepb.Instance, paths []string) {
	for _, p := range paths {
		switch p {
		case "description":
			dst.Description = src.GetDescription()
		case "labels":
			dst.Labels = src.GetLabels()
		case "file_shares":
			share := dst.FileShares[0]
			share.CapacityGb = src.GetFileShares()[0].GetCapacityGb()
			share.NfsExportOptions = src.GetFileShares()[0].GetNfsExportOptions()
		case "deletion_protection_enabled":
			dst.DeletionProtectionEnabled = src.GetDeletionProtectionEnabled()
			if !dst.DeletionProtectionEnabled {
				dst.DeletionProtectionReason = ""
			}
		case "deletion_protection_reason":
			dst.DeletionProtectionReason = src.GetDeletionProtectionReason()
		case "performance_config":
			dst.PerformanceConfig = src.GetPerformanceConfig()
		}
	}
}

func (s *Service) deleteInstance(w http.ResponseWriter, r *http.Request) {
	if v := r.URL.Query().Get("force"); v != "" {
		// force also deletes snapshots; the emulator keeps none, so it only has to be well-formed.
		if _, err := strconv.ParseBool(v); err != nil {
			fail(w, r, badRequest("force: invalid boolean value '%s'.", v))
			return
		}
	}
	l, err := s.instances.StartDelete(r, refuseProtected, func() (any, error) { return core.Typed(emptyTypeURL, struct{}{}), nil })
	if err != nil {
		fail(w, r, err)
		return
	}
	core.WriteJSON(w, http.StatusOK, l)
}

// refuseProtected refuses to delete an instance with deletion protection.
func refuseProtected(name string, prev *filestorepb.Instance) error {
	if !prev.GetDeletionProtectionEnabled() {
		return nil
	}
	msg := fmt.Sprintf("Cannot delete instance '%s' because deletion protection is enabled", name)
	if reason := prev.GetDeletionProtectionReason(); reason != "" {
		msg += " (reason: " + reason + ")"
	}
	return failedPrecondition("%s. Disable deletion protection (deletion_protection_enabled=false) first.", msg)
}
