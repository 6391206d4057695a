package clusterconfig_test

import (
	"slices"
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

func TestValidateExtraSlurmSettings(t *testing.T) {
	tests := []struct {
		extra    map[string]string
		contains string
	}{
		{map[string]string{"MaxJobCount": "50000", "schedulerparameters": "bf_interval=60"}, ""},
		{map[string]string{"MaxJobCnt": "1"}, `slurm.conf setting "MaxJobCnt" is not a key Slurm 22.05 knows; did you mean "MaxJobCount"?`},
		{map[string]string{"FooBar": "1"}, `slurm.conf setting "FooBar" is not a key Slurm 22.05 knows`},
		{map[string]string{"SlurmctldHost": "x"}, "it is set from the cluster's name and controller"},
		{map[string]string{"authtype": "auth/none"}, `"authtype" cannot be set: authentication is managed by hypercompute`},
		{map[string]string{"NodeName": "x"}, "declared by hypercompute_node_partition"},
		{map[string]string{"ResumeProgram": "/bin/true"}, "power saving runs the agent's programs"},
		{map[string]string{"HealthCheckProgram": "/bin/true"}, "hypercompute_health_policy"},
		{map[string]string{"SuspendExcStates": "down"}, "Slurm 23.02 added it and Slurm 22.05 refuses to start with it"},
		{map[string]string{"RoutePlugin": "route/topology"}, "TopologyParam=RouteTree"},
		{map[string]string{"SlurmctldParameters": "enable_configless,cloud_reg_addrs"}, `option "cloud_reg_addrs" is not allowed`},
		{map[string]string{"MaxJobCount": "1", "maxjobcount": "2"}, "is given twice"},
		{map[string]string{"MaxJobCount": ""}, "empty value"},
		{map[string]string{"MailDomain": "a#b"}, `must not contain "#"`},
		{map[string]string{"MailDomain": "a\nNodeName=x"}, "single line"},
		{map[string]string{"MailDomain": `"x"`}, "double quotes"},
	}
	for _, tc := range tests {
		checkErr(t, "ValidateExtraSlurmSettings", cc.ValidateExtraSlurmSettings(tc.extra), tc.contains)
	}
	checkErr(t, "partition", cc.ValidateExtraPartitionSettings(map[string]string{"maxnodes": "4", "QOS": "normal"}), "")
	checkErr(t, "partition", cc.ValidateExtraPartitionSettings(map[string]string{"MaxTime": "4"}), "set the partition's max_time instead")
	checkErr(t, "partition", cc.ValidateExtraPartitionSettings(map[string]string{"Maxnode": "4"}), `did you mean "MaxNodes"?`)
}

func TestAllowedSettingsExcludeOwnedKeys(t *testing.T) {
	allowed := cc.AllowedSlurmSettings()
	for _, k := range []string{"ClusterName", "SlurmctldHost", "AuthType", "NodeName", "PartitionName", "ResumeProgram", "GresTypes", "RoutePlugin"} {
		if slices.Contains(allowed, k) {
			t.Errorf("%s must not be a user setting", k)
		}
	}
	for _, k := range []string{"SchedulerParameters", "MessageTimeout", "MaxJobCount", "AccountingStorageType"} {
		if !slices.Contains(allowed, k) {
			t.Errorf("%s should be a user setting", k)
		}
	}
	if !slices.IsSorted(allowed) || !slices.IsSorted(cc.AllowedPartitionSettings()) {
		t.Error("allowed settings must be sorted (they are shown to users)")
	}
}

// User settings are written once, under Slurm's spelling; list settings
// extend the product's items and a user item replaces the product's item of
// the same option.
func TestExtraSettingsRendering(t *testing.T) {
	c := baseCluster("ml")
	c.Slurm.SchedulerParameters = []string{"bf_window=2880", "bf_continue"}
	c.Slurm.Extra = map[string]string{
		"maxjobcount":          "9",
		"selecttypeparameters": "CR_Core",
		"PrologFlags":          "Alloc,X11",
		"SchedulerParameters":  "bf_window=4320",
	}
	conf, err := cc.RenderSlurmConf(c, []cc.Partition{{Name: "cpu", MachineType: "n2-standard-8", StaticNodes: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\nMaxJobCount=9\n",
		"\nSelectTypeParameters=CR_Core\n",
		"\nPrologFlags=Alloc,Contain,X11\n",
		"\nSchedulerParameters=bf_continue,salloc_wait_nodes,sbatch_wait_nodes,bf_window=4320\n",
	} {
		if !strings.Contains(string(conf), want) {
			t.Errorf("slurm.conf lacks %q:\n%s", strings.TrimSpace(want), conf)
		}
	}
	if n := strings.Count(strings.ToLower(string(conf)), "selecttypeparameters="); n != 1 {
		t.Errorf("SelectTypeParameters written %d times", n)
	}
}
