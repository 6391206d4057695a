package healthpolicy

import (
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// policyID is the resource's id and import id.
func policyID(c cc.ClusterID, name string) string { return c.Child("healthPolicies", name) }

func parseImportID(id string) (cc.ClusterID, string, error) {
	return cc.ParseChildID(id, "healthPolicies")
}
