package trainingcluster_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// runtimeCluster is a cluster on the local runtime: network, Filestore /home, Managed Lustre and
// one login VM, running the agent built from this tree.
func runtimeCluster(agentPath, agentSHA, maxJobs string) string {
	return storageConfig("hc-tcl") + `
resource "hypercompute_lustre" "data" {
  name                = "hc-tcl-data"
  filesystem          = "lustrefs"
  network             = hypercompute_network.net.name
  deletion_protection = false
}
` + clusterConfig("hcl", "file://"+agentPath, agentSHA, fmt.Sprintf(`  lustre = { instance = hypercompute_lustre.data.id }
  slurm  = { extra = { MaxJobCount = %q } }
  deletion_protection = false
  timeouts = { create = "5m", update = "3m" }
`, maxJobs))
}

type secrets struct{ munge, jwt []byte }

// forms are the encodings a key could leak in.
func (s secrets) forms() map[string]string {
	out := map[string]string{}
	for name, b := range map[string][]byte{"munge key": s.munge, "JWT key": s.jwt} {
		out[name+" (raw)"] = string(b)
		out[name+" (base64)"] = base64.StdEncoding.EncodeToString(b)
		out[name+" (hex)"] = hex.EncodeToString(b)
		// A fragment catches truncated or re-wrapped copies.
		out[name+" (base64 fragment)"] = base64.StdEncoding.EncodeToString(b)[8:40]
		out[name+" (hex fragment)"] = hex.EncodeToString(b)[16:64]
	}
	return out
}

func (s secrets) scan(where string, data []byte) error {
	if len(s.munge) == 0 || len(s.jwt) == 0 {
		return fmt.Errorf("the keys were not read from the controller")
	}
	for form, needle := range s.forms() {
		if bytes.Contains(data, []byte(needle)) {
			return fmt.Errorf("the %s appears in %s", form, where)
		}
	}
	return nil
}

type scanPlan struct{ s *secrets }

func (c scanPlan) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	b, _ := json.Marshal(req.Plan)
	resp.Error = c.s.scan("the plan JSON", b)
}

type scanState struct{ s *secrets }

func (c scanState) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	b, _ := json.Marshal(req.State)
	resp.Error = c.s.scan("the state (terraform show -json)", b)
}

func TestAccTrainingCluster_localRuntime(t *testing.T) {
	env, agentPath, agentSHA := acctest.NewSlurmRuntime(t)
	logPath := filepath.Join(t.TempDir(), "terraform.log")
	t.Setenv("TF_LOG", "debug")
	t.Setenv("TF_LOG_PATH", logPath)

	key := func(vm string) string { return instances.InstanceKey(acctest.Project, acctest.Zone, vm) }
	exec := func(vm string, argv ...string) (string, error) { return env.RunOn(30*time.Second, vm, argv...) }
	var keys secrets
	readKeys := func(*terraform.State) error {
		defer func() {
			// The scan must be able to fail: a key planted in a copy of the data is found.
			if err := keys.scan("a planted copy", []byte("x"+base64.StdEncoding.EncodeToString(keys.munge)+"x")); err == nil {
				t.Error("the secret scan does not find a planted munge key")
			}
		}()
		for _, k := range []struct {
			dst  *[]byte
			path string
		}{{&keys.munge, "/home/.hypercompute/secrets/munge.key"}, {&keys.jwt, "/etc/slurm/jwt_hs256.key"}} {
			out, err := exec("hcl-controller", "base64", "-w0", k.path)
			if err != nil {
				return err
			}
			if *k.dst, err = base64.StdEncoding.DecodeString(strings.TrimSpace(out)); err != nil || len(*k.dst) < 32 {
				return fmt.Errorf("%s: %d bytes, %v", k.path, len(*k.dst), err)
			}
		}
		return nil
	}
	sinfo := func(*terraform.State) error {
		out, err := exec("hcl-login-0", "bash", "-lc", "sinfo -h -o '%P %a'; df -P /home /lustre | tail -n +2 | wc -l")
		if err != nil {
			return err
		}
		if !strings.HasSuffix(out, "2\n") {
			return fmt.Errorf("the login VM does not have /home and /lustre mounted: %q", out)
		}
		return nil
	}
	maxJobCount := func(want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			out, err := env.Slurm(30*time.Second, "hcl-controller", "scontrol show config")
			if err != nil {
				return err
			}
			m := regexp.MustCompile(`(?m)^MaxJobCount\s*=\s*(\S+)`).FindStringSubmatch(out)
			if m == nil || m[1] != want {
				return fmt.Errorf("slurmctld runs with MaxJobCount %v, want %s", m, want)
			}
			return nil
		}
	}
	reported := func(*terraform.State) error {
		attrs := env.Emulator.Server().Component("instances").(*instances.Service).GuestAttributes(key("hcl-controller")).Values["hypercompute"]
		if attrs["phase"] != clusterconfig.PhaseReady {
			return fmt.Errorf("controller reports %v", attrs)
		}
		return nil
	}
	noLeaks := func(*terraform.State) error {
		inv := env.Inventory()
		for _, kind := range []string{instances.KindInstances, instances.KindGuestAttributes} {
			if len(inv.Kinds[kind]) == 0 {
				return fmt.Errorf("nothing of kind %s to scan", kind)
			}
			for _, it := range inv.Kinds[kind] {
				if err := keys.scan(kind+" "+it.Key, it.Resource); err != nil {
					return err
				}
			}
		}
		logs, err := os.ReadFile(logPath)
		// The provider runs in this process and logs every API call it makes at debug level.
		if err != nil || !regexp.MustCompile(`GCP API call: .*instances/hcl-controller/setMetadata`).Match(logs) {
			return fmt.Errorf("the provider's debug log %s was not written (%d bytes, %v)", logPath, len(logs), err)
		}
		t.Logf("scanned %d bytes of debug log, %d instances, %d guest attribute sets", len(logs),
			len(inv.Kinds[instances.KindInstances]), len(inv.Kinds[instances.KindGuestAttributes]))
		return keys.scan("the provider's debug log", logs)
	}

	// A login VM's user takes the VM's token and tries to delete the controller: the login role has no
	// Compute scope, so the local cloud refuses it as Google does (issue 23, items 9 and 10).
	loginCannotDelete := func(*terraform.State) error {
		code, body, err := env.DeleteWithVMToken("hcl-login-0", "nobody", "hcl-controller")
		if err != nil {
			return err
		}
		if code != 403 || !strings.Contains(body, "ACCESS_TOKEN_SCOPE_INSUFFICIENT") {
			return fmt.Errorf("instances.delete of the controller with the login VM's token answered %d %s", code, body)
		}
		return reported(nil)
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkVMs(env),
		Steps: []resource.TestStep{
			{
				// The apply ends only after the controller's agent reported ready with the config's
				// hash; the login VM then runs sinfo against it.
				Config: env.Config(runtimeCluster(agentPath, agentSHA, "10000")),
				Check:  resource.ComposeTestCheckFunc(reported, sinfo, readKeys, maxJobCount("10000"), loginCannotDelete),
			},
			{
				// A setting the plan accepts and slurmctld refuses: the apply fails with slurmctld's
				// words, and the controller keeps serving the previous configuration.
				Config:      env.Config(runtimeCluster(agentPath, agentSHA, "abc")),
				ExpectError: acctest.ErrorMatching(`slurmctld said: error: MaxJobCount value \(abc\) is not a valid number`),
			},
			{
				Config: env.Config(runtimeCluster(agentPath, agentSHA, "10000")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), scanPlan{&keys}},
				},
				ConfigStateChecks: []statecheck.StateCheck{scanState{&keys}},
				Check:             resource.ComposeTestCheckFunc(maxJobCount("10000"), sinfo, noLeaks),
			},
		},
	})
}
