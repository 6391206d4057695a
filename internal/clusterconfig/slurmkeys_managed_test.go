package clusterconfig_test

import (
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// The managed keys are exactly the ones slurm.extra may not set plus the product defaults it may
// replace: each owned key is one ValidateExtraSlurmSettings refuses with the reason the list gives,
// each replaceable one it accepts, and user-only and merged keys are not in the list.
func TestManagedSlurmKeys(t *testing.T) {
	global, partition := cc.ManagedSlurmKeys(), cc.ManagedPartitionKeys()
	for _, k := range []string{"SlurmctldHost", "AuthType", "NodeName", "ResumeProgram", "SelectType"} {
		reason, ok := global[k]
		if !ok {
			t.Errorf("%s is not a managed key", k)
			continue
		}
		err := cc.ValidateExtraSlurmSettings(map[string]string{k: "x"})
		if err == nil || !strings.Contains(err.Error(), reason) {
			t.Errorf("%s: managed for %q, but slurm.extra validation says %v", k, reason, err)
		}
	}
	for _, k := range []string{"SelectTypeParameters", "ReturnToService", "MessageTimeout"} {
		if _, ok := global[k]; !ok {
			t.Errorf("%s (a product default slurm.extra may replace) is not a managed key", k)
		}
		if err := cc.ValidateExtraSlurmSettings(map[string]string{k: "1"}); err != nil {
			t.Errorf("%s: the provider should accept it: %v", k, err)
		}
	}
	for _, k := range []string{"MaxJobCount", "SchedulerParameters", "RoutePlugin", "SuspendExcStates"} {
		if _, ok := global[k]; ok {
			t.Errorf("%s is listed as managed", k)
		}
	}
	for _, k := range []string{"Nodes", "MaxTime", "State", "OverSubscribe"} {
		if partition[k] == "" {
			t.Errorf("partition key %s is not managed", k)
		}
	}
	if _, ok := partition["DefaultTime"]; ok {
		t.Error("partition key DefaultTime is listed as managed")
	}
}
