package trainingcluster_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/trainingcluster"
)

// buckets = [], slurm.scheduler_parameters = [], slurm.extra = {}, accounting.qos = [],
// monitoring.notification_channels = [], login.labels = {}, login_pools = [] and labels = {} (modules/training-cluster passes most of them), and all of them unset, plan nothing
// after apply, refresh and import (issue 19).
func TestAccTrainingCluster_collectionsRoundTrip(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	env.TestCollectionsRoundTrip(t, acctest.RoundTrip{
		Factories: factories, New: trainingcluster.NewResource,
		Prelude: storageConfig("hc-tccol"),
		Body: map[string]any{
			"name": "hccol", "network": acctest.HCL("hypercompute_network.net.name"),
			"home":  map[string]any{"filestore": acctest.HCL("hypercompute_filestore.home.id")},
			"agent": map[string]any{"url": "file:///opt/hypercompute-agent", "sha256": fakeSHA},
			"login": map[string]any{"count": 0},
			// Set objects, so their collections are injected.
			"slurm":           map[string]any{"suspend_time": 600},
			"accounting":      map[string]any{"fair_share": true},
			"monitoring":      map[string]any{"goodput_target": 0.9},
			"service_account": map[string]any{"email": "default"},
		},
		Unprotect: map[string]any{"deletion_protection": false},
		Distinct: map[string]string{
			"service_account.scopes":             "[] is VMs without scopes; unset, each role's minimal scopes",
			"service_accounts.controller.scopes": "[] is a controller without scopes; unset, service_account.scopes or the role's minimal scopes",
			"service_accounts.compute.scopes":    "[] is nodes without scopes; unset, service_account.scopes or the role's minimal scopes",
			"service_accounts.login.scopes":      "[] is login VMs without scopes; unset, service_account.scopes or the role's minimal scopes",
			// The harness injects collections into list elements only where the body has some, and
			// the body may not set login_pools itself; TestAccTrainingCluster_loginPools plans a
			// pool's labels = {} against unset.
			"login_pools.labels": "inside login_pools' elements; proved by TestAccTrainingCluster_loginPools",
		},
	})
}
