package instances

import (
	"fmt"
	"net/http"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Instance templates are immutable: insert, get, list, delete (global and regional).

func (s *Service) templateRoutes() {
	g := prefix + "/global/instanceTemplates"
	s.handle("POST "+g, "compute.instanceTemplates.insert", core.Mutating, s.insertTemplate)
	s.handle("GET "+g+"/{template}", "compute.instanceTemplates.get", core.Read, s.getTemplate)
	s.handle("GET "+g, "compute.instanceTemplates.list", core.Read, s.listTemplates)
	s.handle("DELETE "+g+"/{template}", "compute.instanceTemplates.delete", core.Mutating, s.deleteTemplate)
	s.handle("GET "+prefix+"/aggregated/instanceTemplates", "compute.instanceTemplates.aggregatedList", core.Read, s.aggregatedTemplates)
	rg := prefix + "/regions/{region}/instanceTemplates"
	s.handle("POST "+rg, "compute.regionInstanceTemplates.insert", core.Mutating, s.insertTemplate)
	s.handle("GET "+rg+"/{template}", "compute.regionInstanceTemplates.get", core.Read, s.getTemplate)
	s.handle("GET "+rg, "compute.regionInstanceTemplates.list", core.Read, s.listTemplates)
	s.handle("DELETE "+rg+"/{template}", "compute.regionInstanceTemplates.delete", core.Mutating, s.deleteTemplate)
}

// templateKey resolves a template reference (URL, partial path or bare global name) to its key and kind.
func templateKey(project, ref string) (string, string) {
	rel := core.RelativePath(ref)
	if strings.Contains(rel, "/regions/") || strings.HasPrefix(rel, "regions/") {
		return resolveRef(project, "", "instanceTemplates", rel), KindRegionInstanceTemplates
	}
	return resolveRef(project, "global", "instanceTemplates", rel), KindInstanceTemplates
}

// templateScope reads the request's scope: the region of a regional template route ("" for global), validated.
func (s *Service) templateScope(w http.ResponseWriter, r *http.Request) (kind, collection string, ok bool) {
	project := r.PathValue("project")
	if r.PathValue("region") == "" {
		return KindInstanceTemplates, fmt.Sprintf("projects/%s/global/instanceTemplates", project), true
	}
	region, ok := s.region(w, r)
	if !ok {
		return "", "", false
	}
	return KindRegionInstanceTemplates, fmt.Sprintf("projects/%s/regions/%s/instanceTemplates", project, region), true
}

func (s *Service) insertTemplate(w http.ResponseWriter, r *http.Request) {
	kind, collection, ok := s.templateScope(w, r)
	if !ok {
		return
	}
	t := &computepb.InstanceTemplate{}
	if _, err := readBody(r, t); err != nil {
		fail(w, r, err)
		return
	}
	if err := core.ValidateName("resource.name", t.GetName()); err != nil {
		fail(w, r, err)
		return
	}
	key := collection + "/" + t.GetName()
	if s.Store.Exists(kind, key) {
		fail(w, r, core.AlreadyExists(key))
		return
	}
	project, _, region := scopePartsOf(key)
	if err := s.validateTemplateProperties(project, region, t.GetProperties()); err != nil {
		fail(w, r, err)
		return
	}
	t.Kind = proto.String("compute#instanceTemplate")
	t.Id = proto.Uint64(s.Rand.ID())
	t.CreationTimestamp = proto.String(core.Timestamp(s.Now()))
	t.SelfLink = proto.String(core.SelfLink(key))
	t.Region = nil
	if region != "" {
		t.Region = proto.String(core.SelfLink(fmt.Sprintf("projects/%s/regions/%s", project, region)))
	}
	if md := t.Properties.Metadata; md != nil {
		md.Kind = proto.String("compute#metadata")
		md.Fingerprint = proto.String(s.randomFingerprint())
	}
	op := s.Ops.StartCompute(r, core.ComputeOp{
		Project: project, Region: region, OperationType: "insert", TargetLink: key, TargetID: t.GetId(),
		Apply: func(tx *core.Tx, _ *computepb.Operation) error {
			if tx.Exists(kind, key) {
				return core.OpAlreadyExists(key)
			}
			return tx.Put(kind, key, t)
		},
	})
	core.WriteJSON(w, http.StatusOK, op)
}

// validateTemplateProperties checks what can be checked without a zone: the machine type exists, metadata and
// labels follow the rules, referenced networks exist.
func (s *Service) validateTemplateProperties(project, region string, p *computepb.InstanceProperties) *core.APIError {
	if p == nil {
		return core.Required("resource.properties")
	}
	name, _ := machineTypeName(p.GetMachineType())
	if name == "" {
		return core.Required("resource.properties.machineType")
	}
	if _, ok := catalog.Machine(name); !ok {
		return core.InvalidField("resource.properties.machineType", p.GetMachineType(), fmt.Sprintf("Machine type with name '%s' does not exist.", name))
	}
	if err := validateMetadata("resource.properties.metadata", p.GetMetadata()); err != nil {
		return err
	}
	if err := validateLabels("resource.properties.labels", p.GetLabels()); err != nil {
		return err
	}
	if len(p.GetDisks()) == 0 {
		return core.InvalidField("resource.properties.disks", "", "At least one disk, the boot disk, must be attached to the instance.")
	}
	for i, d := range p.GetDisks() {
		if ref := d.GetInitializeParams().GetSourceImage(); ref != "" {
			if _, err := resolveImage(s.Store, project, fmt.Sprintf("resource.properties.disks[%d].initializeParams.sourceImage", i), ref); err != nil {
				return err
			}
		}
	}
	for _, n := range p.GetNetworkInterfaces() {
		if n.GetNetwork() != "" {
			if k := resolveRef(project, "global", "networks", n.GetNetwork()); !s.Store.Exists(compute.KindNetworks, k) {
				return core.NotFound(k)
			}
		}
		if n.GetSubnetwork() != "" {
			scope := "regions/" + region
			if region == "" {
				scope = "regions/-"
			}
			if k := resolveRef(project, scope, "subnetworks", n.GetSubnetwork()); !s.Store.Exists(compute.KindSubnetworks, k) {
				return core.NotFound(k)
			}
		}
	}
	return nil
}

func (s *Service) getTemplate(w http.ResponseWriter, r *http.Request) {
	kind, collection, ok := s.templateScope(w, r)
	if !ok {
		return
	}
	s.getRaw(w, r, kind, collection+"/"+r.PathValue("template"))
}

func (s *Service) listTemplates(w http.ResponseWriter, r *http.Request) {
	kind, collection, ok := s.templateScope(w, r)
	if !ok {
		return
	}
	s.list(w, r, "compute#instanceTemplateList", kind, collection+"/")
}

func (s *Service) aggregatedTemplates(w http.ResponseWriter, r *http.Request) {
	p := "projects/" + r.PathValue("project") + "/"
	recs := append(s.Store.List(KindInstanceTemplates, p), s.Store.List(KindRegionInstanceTemplates, p)...)
	s.aggregated(w, r, "compute#instanceTemplateAggregatedList", "instanceTemplates", recs, append([]string{"global"}, regionScopes()...))
}

func (s *Service) deleteTemplate(w http.ResponseWriter, r *http.Request) {
	kind, collection, ok := s.templateScope(w, r)
	if !ok {
		return
	}
	key := collection + "/" + r.PathValue("template")
	var t computepb.InstanceTemplate
	if found, _ := s.Store.Get(kind, key, &t); !found {
		fail(w, r, core.NotFound(key))
		return
	}
	project, _, region := scopePartsOf(key)
	op := s.Ops.StartCompute(r, core.ComputeOp{
		Project: project, Region: region, OperationType: "delete", TargetLink: key, TargetID: t.GetId(),
		Apply: func(tx *core.Tx, _ *computepb.Operation) error {
			if !tx.Delete(kind, key) {
				return core.OpNotFound(key)
			}
			return nil
		},
	})
	core.WriteJSON(w, http.StatusOK, op)
}
