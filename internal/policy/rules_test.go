package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/policy"
)

// The environments each rule is enforced in: the table policies/README.md gives users.
var enforcedIn = map[string][]string{
	"ml-dev":     {"no_public_ips"},
	"ml-staging": {"no_public_ips", "shielded_vm", "slurm_managed_keys"},
	"ml-prod":    {"deletion_protection", "gpu_capacity", "no_public_ips", "shielded_vm", "slurm_managed_keys", "spot_preemptible"},
}

const (
	cluster   = "module.cluster.hypercompute_training_cluster.this"
	lustre    = "module.cluster.module.lustre[0].hypercompute_lustre.this"
	unknownIn = " is not known until apply, so the ENV policy cannot show it complies; set it from a value known at plan time"
)

func partition(name string) string {
	return `module.cluster.module.partition["` + name + `"].hypercompute_node_partition.this`
}

// Each rule has a plan that passes it and one that fails it (testdata/<rule>/, in the shape of
// `terraform show -json`, derived from a real ml-prod plan). The failing plan's violations are
// given in full; ENV in a message stands for the environment checked. A violation is expected in
// every environment that enforces its rule and in no other, and the passing plan passes everywhere.
var ruleCases = []struct {
	rule string
	want []policy.Violation // of testdata/<rule>/fail.json
}{
	{"deletion_protection", []policy.Violation{
		{"deletion_protection", "hypercompute_bucket.checkpoints", "deletion_protection = false: in ENV storage and clusters must refuse deletion; set deletion_protection = true"},
		{"deletion_protection", cluster, "deletion_protection" + unknownIn},
		{"deletion_protection", lustre, "deletion_protection = false: in ENV storage and clusters must refuse deletion; set deletion_protection = true"},
	}},
	{"no_public_ips", []policy.Violation{
		{"no_public_ips", cluster, "enable_public_ips = true gives the controller, login and node VMs external IPs; in ENV VMs reach the internet through the network's Cloud NAT and users connect through IAP: set enable_public_ips = false"},
		{"no_public_ips", "module.other.hypercompute_training_cluster.this", "enable_public_ips" + unknownIn},
	}},
	{"shielded_vm", []policy.Violation{
		{"shielded_vm", cluster, "shielded_vm = false turns off Secure Boot, vTPM and integrity monitoring on the cluster's VMs; ENV runs Shielded VMs only: set shielded_vm = true"},
	}},
	{"gpu_capacity", []policy.Violation{
		{"gpu_capacity", partition("a3ondemand"), `GPU partition on a3-megagpu-8g uses provisioning.model = "standard" (on-demand capacity, which stockouts take away); in ENV GPU partitions consume a reservation (model "reservation") or flex-start ("flex_start"), or Spot when labelled preemptible = "true"`},
		{"gpu_capacity", partition("a3unknown"), "provisioning.model" + unknownIn},
		// An unknown model may be Spot too, which the Spot rule cannot see either.
		{"spot_preemptible", partition("a3unknown"), "provisioning.model" + unknownIn},
	}},
	{"spot_preemptible", []policy.Violation{
		{"spot_preemptible", partition("cpuspot"), spotUnmarked},
		// An update that removes the label.
		{"spot_preemptible", partition("eval"), spotUnmarked},
		{"spot_preemptible", partition("evalunknown"), "labels.preemptible" + unknownIn},
	}},
	{"slurm_managed_keys", []policy.Violation{
		{"slurm_managed_keys", cluster, `slurm.extra sets " SlurmctldPort " (SlurmctldPort), a slurm.conf key hypercompute manages: set the cluster's Slurm port settings instead; in ENV slurm.extra overrides no managed key, remove it`},
		{"slurm_managed_keys", cluster, `slurm.extra sets "selecttypeparameters" (SelectTypeParameters), a slurm.conf key hypercompute manages: hypercompute writes its own value, which the cluster is tested with, and slurm.extra would replace it; in ENV slurm.extra overrides no managed key, remove it`},
		{"slurm_managed_keys", partition("a3mega"), `slurm.extra sets "MaxTime", a PartitionName setting hypercompute manages: set the partition's max_time instead; in ENV slurm.extra overrides no managed key, remove it`},
		{"slurm_managed_keys", partition("eval"), "slurm.extra" + unknownIn},
	}},
}

const spotUnmarked = `provisioning.model = "spot" but the partition is not labelled preemptible = "true"; in ENV Spot VMs, which Compute may preempt at any time, are only for partitions whose jobs may be preempted: add the label, or use a reservation or flex-start`

func TestRules(t *testing.T) {
	p, err := policy.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Environments(); !slices.Equal(got, []string{"ml-dev", "ml-prod", "ml-staging"}) {
		t.Fatalf("environments %v", got)
	}
	ctx := context.Background()
	for _, tc := range ruleCases {
		t.Run(tc.rule, func(t *testing.T) {
			pass, fail := readPlan(t, tc.rule, "pass"), readPlan(t, tc.rule, "fail")
			for env, rules := range enforcedIn {
				res, err := p.Check(ctx, env, pass)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(res.Rules, rules) {
					t.Errorf("%s enforces %v, want %v", env, res.Rules, rules)
				}
				if len(res.Violations) > 0 {
					t.Errorf("%s: the passing plan has violations:\n%s", env, lines(res.Violations))
				}
				if res, err = p.Check(ctx, env, fail); err != nil {
					t.Fatal(err)
				}
				var want []policy.Violation
				for _, v := range tc.want {
					if slices.Contains(rules, v.Rule) {
						v.Msg = strings.ReplaceAll(v.Msg, "ENV", env)
						want = append(want, v)
					}
				}
				if !slices.Equal(res.Violations, want) {
					t.Errorf("%s: the failing plan's violations are\n%s\nwant\n%s", env, lines(res.Violations), lines(want))
				}
			}
		})
	}
}

// Deletes, no-ops and data source reads are not judged; creates, updates and replacements are.
func TestJudgedChanges(t *testing.T) {
	p, err := policy.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rule, which string
		judged      int
	}{
		{"deletion_protection", "pass", 4}, // a delete and a no-op left out
		{"gpu_capacity", "pass", 5},        // a data source read left out
		{"no_public_ips", "fail", 5},       // a replacement judged
		{"spot_preemptible", "pass", 4},    // a delete left out
	} {
		res, err := p.Check(context.Background(), "ml-prod", readPlan(t, tc.rule, tc.which))
		if err != nil {
			t.Fatal(err)
		}
		if res.Judged != tc.judged {
			t.Errorf("%s/%s: %d resource changes judged, want %d", tc.rule, tc.which, res.Judged, tc.judged)
		}
	}
}

func readPlan(t *testing.T, rule, which string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", rule, which+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func lines(vs []policy.Violation) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString("  " + v.String() + "\n")
	}
	return b.String()
}
