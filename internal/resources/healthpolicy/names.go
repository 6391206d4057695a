package healthpolicy

import (
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// policyID is the resource's id and import id.
func policyID(c cc.ClusterID, name string) string { return c.Child("healthPolicies", name) }

func parseImportID(id string) (cc.ClusterID, string, error) {
	return cc.ParseChildID(id, "healthPolicies")
}

// ownedKey is the policy's key on the controller, as a create claims it (tfutil.OwnedKey).
func ownedKey(c cc.ClusterID, name string) tfutil.OwnedKey {
	return tfutil.OwnedKey{Type: "hypercompute_health_policy", What: "health policy", Cluster: c, Name: name,
		Key: cc.HealthPolicyKey(name), ImportID: policyID(c, name)}
}
