package healthpolicy

import (
	"fmt"
	"strings"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// clusterRef is a training cluster id, projects/P/zones/Z/clusters/NAME.
type clusterRef struct{ project, zone, name string }

func (c clusterRef) id() string {
	return fmt.Sprintf("projects/%s/zones/%s/clusters/%s", c.project, c.zone, c.name)
}

func (c clusterRef) cid() cc.ClusterID {
	return cc.ClusterID{Project: c.project, Zone: c.zone, Name: c.name}
}

func (c clusterRef) vm() tfutil.VM {
	return tfutil.VM{Project: c.project, Zone: c.zone, Name: cc.ControllerName(c.name)}
}

func parseClusterID(id string) (clusterRef, error) {
	c, err := cc.ParseClusterID(id)
	return clusterRef{project: c.Project, zone: c.Zone, name: c.Name}, err
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
