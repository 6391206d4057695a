package healthpolicy

import (
	"fmt"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// clusterRef is a training cluster id, projects/P/zones/Z/clusters/NAME.
type clusterRef struct{ project, zone, name string }

func (c clusterRef) id() string {
	return fmt.Sprintf("projects/%s/zones/%s/clusters/%s", c.project, c.zone, c.name)
}

func (c clusterRef) vm() tfutil.VM {
	return tfutil.VM{Project: c.project, Zone: c.zone, Name: cc.ControllerName(c.name)}
}

func parseClusterID(id string) (clusterRef, error) {
	p := strings.Split(id, "/")
	if len(p) != 6 || p[0] != "projects" || p[2] != "zones" || p[4] != "clusters" || p[1] == "" {
		return clusterRef{}, fmt.Errorf("%q is not a training cluster id; use hypercompute_training_cluster.<name>.id (projects/{project}/zones/{zone}/clusters/{name})", id)
	}
	ref := clusterRef{project: p[1], zone: p[3], name: p[5]}
	if err := catalog.ValidateZone(ref.zone); err != nil {
		return clusterRef{}, fmt.Errorf("cluster id %q: %w", id, err)
	}
	if err := cc.ValidateClusterName(ref.name); err != nil {
		return clusterRef{}, fmt.Errorf("cluster id %q: %w", id, err)
	}
	return ref, nil
}

// policyID is the resource's id and import id.
func policyID(c clusterRef, name string) string { return c.id() + "/healthPolicies/" + name }

func parseImportID(id string) (clusterRef, string, error) {
	i := strings.LastIndex(id, "/healthPolicies/")
	if i < 0 {
		return clusterRef{}, "", fmt.Errorf("expected projects/{project}/zones/{zone}/clusters/{cluster}/healthPolicies/{name}; got %q", id)
	}
	ref, err := parseClusterID(id[:i])
	if err != nil {
		return clusterRef{}, "", err
	}
	return ref, id[i+len("/healthPolicies/"):], nil
}
