package compute

import (
	"net/http"
	"strconv"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// KindProjects holds Compute project records (key "projects/P"). Every project id exists implicitly: a GET of a
// project never stored answers DefaultProject; handlers that change project-level state (common instance
// metadata) store the record here.
const KindProjects = "compute.projects"

func init() { addRoutes(projectRoutes) }

func projectRoutes(s *Service) {
	s.handle("GET /compute/v1/projects/{project}", "compute.projects.get", core.Read, func(w http.ResponseWriter, r *http.Request) {
		core.WriteJSON(w, http.StatusOK, s.Project(r.PathValue("project")))
	})
}

// Project returns the project's record: the stored one, or the default for an untouched project.
func (s *Service) Project(project string) *computepb.Project {
	p := &computepb.Project{}
	if ok, _ := s.Store.Get(KindProjects, "projects/"+project, p); ok {
		s.fillProjectQuotas(p, project)
		return p
	}
	p = DefaultProject(project)
	s.fillProjectQuotas(p, project)
	return p
}

// DefaultProject is the record of a project nothing has changed: its id is the emulator's deterministic
// project number (core.ProjectNumber), which Service Networking's network names use.
func DefaultProject(project string) *computepb.Project {
	num := core.ProjectNumber(project)
	id, _ := strconv.ParseUint(num, 10, 64)
	return &computepb.Project{
		Kind:                  proto.String("compute#project"),
		Id:                    proto.Uint64(id),
		Name:                  proto.String(project),
		CreationTimestamp:     proto.String(catalogCreated),
		SelfLink:              proto.String(core.SelfLink("projects/" + project)),
		DefaultServiceAccount: proto.String(num + "-compute@developer.gserviceaccount.com"),
		DefaultNetworkTier:    proto.String("PREMIUM"),
		XpnProjectStatus:      proto.String("UNSPECIFIED_XPN_PROJECT_STATUS"),
		VmDnsSetting:          proto.String("ZONAL_ONLY"),
		CommonInstanceMetadata: &computepb.Metadata{
			Kind:        proto.String("compute#metadata"),
			Fingerprint: proto.String(core.Fingerprint("project-metadata", project)),
		},
	}
}

// fillProjectQuotas reports the project-wide ("global" region) quota ledger.
func (s *Service) fillProjectQuotas(p *computepb.Project, project string) {
	p.Quotas = nil
	for _, q := range s.Quotas.List("global") {
		limit := q.Limit
		if limit < 0 {
			limit = unlimitedQuota
		}
		p.Quotas = append(p.Quotas, &computepb.Quota{Metric: proto.String(q.Metric), Limit: proto.Float64(limit), Usage: proto.Float64(q.Usage)})
	}
}
