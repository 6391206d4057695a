package pipelines_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// pipeline runs pipelines/run.sh of a copied checkout as the CI definitions do, each run with a
// work directory of its own (what a CI job passes to the next).
type pipeline struct {
	t      *testing.T
	c      *cli
	script string
	// took is each stage's wall time, in the order they ran, for docs/benchmarks.md.
	took []string
}

// newPipeline copies the checkout and builds the policy stage's command from this repository.
func newPipeline(t *testing.T, env *acctest.Env) *pipeline {
	t.Helper()
	tree := checkout(t)
	policy := filepath.Join(t.TempDir(), "hypercompute-policy")
	build := exec.Command("go", "build", "-o", policy, "./cmd/hypercompute-policy")
	build.Dir = acctest.RepoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the policy stage's command: %v\n%s", err, out)
	}
	c := newCLI(t, env.Env, "HYPERCOMPUTE_POLICY="+policy, "TF_VAR_project_id="+acctest.Project, "TF_VAR_agent="+agentVar)
	return &pipeline{t: t, c: c, script: filepath.Join(tree, "pipelines", "run.sh")}
}

// start starts one stage; extra adds to its environment (variables of one blueprint).
func (p *pipeline) start(env, stage, work string, extra ...string) *proc {
	p.t.Helper()
	return p.c.start(filepath.Dir(p.script), append([]string{"PIPELINE_WORK_DIR=" + work}, extra...), "bash", p.script, env, stage)
}

// stage runs one stage to the end and returns its output and exit status.
func (p *pipeline) stage(env, stage, work string, extra ...string) (string, int) {
	p.t.Helper()
	start := time.Now()
	out, rc := p.start(env, stage, work, extra...).wait()
	p.took = append(p.took, fmt.Sprintf("%s %s %.1fs (exit %d)", env, stage, time.Since(start).Seconds(), rc))
	return out, rc
}

// must runs a stage that has to succeed.
func (p *pipeline) must(env, stage, work string, extra ...string) string {
	p.t.Helper()
	out, rc := p.stage(env, stage, work, extra...)
	if rc != 0 {
		p.t.Fatalf("pipelines/run.sh %s %s exited %d:\n%s", env, stage, rc, out)
	}
	return out
}

// requireExit fails unless a stage exited rc with every one of wants in its output.
func requireExit(t *testing.T, what, out string, got, rc int, wants ...string) {
	t.Helper()
	if got != rc {
		t.Fatalf("%s exited %d, want %d:\n%s", what, got, rc, out)
	}
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Fatalf("%s does not say %q:\n%s", what, w, out)
		}
	}
}

// The pipeline's stages end to end on the local cloud, state in its Cloud Storage: ml-dev through
// validate, plan, policy and apply of exactly the saved plan (its training job completes: the fake
// controller agent and jobs play Slurm), while a second pipeline run's apply of the same
// environment is refused naming the lock's holder and, once the first finished, refused as stale;
// verify plans nothing and records ml-dev's modules version; a firewall rule deleted behind
// Terraform's back makes drift exit 2 naming the network. ml-staging, whose promotion needs
// ml-dev's record, passes validate (with its modules' terraform tests), plan and policy; ml-prod
// plans with a warning and passes policy, but its apply is refused: ml-staging has not verified
// these modules.
func TestAccPipeline_stages(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	jobs := acctest.StartFakeJobs(t, env, "ml-dev")
	// The state bucket as pipelines/bootstrap makes it (TestAccPipeline_stateBucketAndLock applies that).
	acctest.LocalStateBackend(t, env.Env)
	p := newPipeline(t, env)
	defer func() { t.Logf("stage timings: %s", strings.Join(p.took, "; ")) }()

	first, second := t.TempDir(), t.TempDir()
	p.must("ml-dev", "validate", first)
	out := p.must("ml-dev", "plan", first)
	requireExit(t, "ml-dev's plan", out, 0, 0, "Plan: 7 to add, 0 to change, 0 to destroy.", "plan: ml-dev's saved plan is")
	for _, f := range []string{"tfplan", "plan.json", "plan.txt", "plan.env"} {
		if _, err := os.Stat(filepath.Join(first, f)); err != nil {
			t.Fatalf("the plan stage left no %s: %v", f, err)
		}
	}
	out, rc := p.stage("ml-dev", "apply", first)
	requireExit(t, "an apply before the policy stage", out, rc, 1, "has not passed the policy stage")
	p.must("ml-dev", "policy", first)
	// A second pipeline run of ml-dev plans the same change before the first applies.
	p.must("ml-dev", "plan", second)
	p.must("ml-dev", "policy", second)

	// The first run's apply holds the state lock until its training job completes.
	jobs.Hold(true)
	started := time.Now()
	applying := p.start("ml-dev", "apply", first)
	lock := waitLock(t, env.Env, "hypercompute/ml-dev", applying)
	out, rc = p.stage("ml-dev", "apply", second)
	requireRefusedByLock(t, "the second run's apply", out, rc, lock)
	requireExit(t, "the second run's apply", out, rc, 1, "another run holds ml-dev's state lock")
	jobs.Hold(false)
	if out, rc := applying.wait(); rc != 0 || !strings.Contains(out, "Apply complete! Resources: 7 added, 0 changed, 0 destroyed.") {
		t.Fatalf("the first run's apply exited %d:\n%s", rc, out)
	}
	p.took = append(p.took, fmt.Sprintf("ml-dev apply %.1fs (exit 0; held while the second run's apply was refused)", time.Since(started).Seconds()))
	out, rc = p.stage("ml-dev", "apply", second)
	requireExit(t, "the second run's apply after the first", out, rc, 1, "Saved plan is stale", "ml-dev's saved plan is stale")
	if s := readState(t, env.Env, "hypercompute/ml-dev"); len(s.Resources) < 7 {
		t.Fatalf("ml-dev's state holds %d resources after the apply, want the 7 applied", len(s.Resources))
	}

	out = p.must("ml-dev", "verify", first)
	requireExit(t, "ml-dev's verify", out, 0, 0, "verify: ml-dev plans no change after the apply", "recorded as verified in ml-dev")
	out = p.must("ml-dev", "drift", first)
	requireExit(t, "ml-dev's drift check", out, 0, 0, "drift: ml-dev matches its configuration")

	// Out of band: the IAP SSH rule deleted through the API, as a person in the console might.
	req, _ := http.NewRequest(http.MethodDelete, env.URL+"/compute/v1/projects/"+acctest.Project+"/global/firewalls/ml-dev-allow-iap-ssh", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("deleting the firewall rule out of band: %v %v", resp, err)
	}
	out, rc = p.stage("ml-dev", "drift", first)
	requireExit(t, "ml-dev's drift check after the change", out, rc, 2, "drift: ml-dev differs from its configuration",
		"hypercompute_network.cluster will be updated in-place")

	// ml-staging takes the modules ml-dev verified.
	staging := t.TempDir()
	out = p.must("ml-staging", "validate", staging)
	requireExit(t, "ml-staging's validate", out, 0, 0, "validate: modules/training-cluster: Success!", "validate: modules/network: Success!")
	out = p.must("ml-staging", "plan", staging)
	requireExit(t, "ml-staging's plan", out, 0, 0, "were verified in ml-dev")
	p.must("ml-staging", "policy", staging)

	// ml-prod plans, but its apply waits for ml-staging's verify of the same modules.
	prod := t.TempDir()
	seedReservation(t, env, "a3mega", 32)
	out = p.must("ml-prod", "plan", prod, "TF_VAR_a3mega_reservation=a3mega")
	requireExit(t, "ml-prod's plan", out, 0, 0, "were verified in ml-dev", "ml-staging has not verified modules", "The apply stage will refuse this plan")
	p.must("ml-prod", "policy", prod)
	out, rc = p.stage("ml-prod", "apply", prod, "TF_VAR_a3mega_reservation=a3mega")
	requireExit(t, "ml-prod's apply", out, rc, 1, "ml-staging has not verified modules")
	if strings.Contains(out, "Apply complete") {
		t.Fatalf("ml-prod's apply ran:\n%s", out)
	}
}

// seedReservation makes a specific A3 Mega reservation of count VMs in the test project's zone
// through the admin API, as tools/module-test-fixtures.sh does: a reservation partition's plan
// checks its capacity.
func seedReservation(t *testing.T, env *acctest.Env, name string, count int) {
	t.Helper()
	body := fmt.Sprintf(`{"project": %q, "zone": %q, "reservation": {"name": %q, "specificReservationRequired": true,
	  "specificReservation": {"count": "%d", "instanceProperties": {"machineType": "a3-megagpu-8g"}}}}`, acctest.Project, acctest.Zone, name, count)
	resp, err := http.Post(env.URL+"/emulator/v1/reservations", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("seeding reservation %s: %s", name, resp.Status)
	}
}
