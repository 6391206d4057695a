package blueprints_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/provider"
)

// providerAddr is the address the blueprints' required_providers (and the modules' `~> 0.1`)
// resolve to. A reattached provider is "unmanaged": init installs nothing for it and checks no
// version, so neither a registry nor a filesystem mirror is involved.
const providerAddr = "registry.terraform.io/hypercompute/hypercompute"

// commandTimeout bounds one terraform command; the 1,000-node apply is the longest.
const commandTimeout = 15 * time.Minute

// blueprint is one directory of examples/blueprints, copied verbatim with the repository's
// modules/ into a temporary tree of the same layout (so its `../../../modules/...` sources
// resolve and nothing is written into the checkout), and driven through the terraform CLI.
type blueprint struct {
	tb   testing.TB
	name string
	tf   *tfexec.Terraform
	// vars are the -var values of every command: the configuration the state was applied from.
	vars map[string]string
	// planFile is the last plan's saved plan, which applyInPlace applies as it was checked.
	planFile string
}

// newBlueprint copies examples/blueprints/<name> and modules/, points the provider at env (the
// blueprints' provider blocks name no emulator, as a user's would not) and runs terraform init,
// which installs the modules from the copied tree and keeps the state in env's Cloud Storage.
func newBlueprint(tb testing.TB, env *emulatortest.Env, name string, vars map[string]string) *blueprint {
	tb.Helper()
	root := acctest.RepoRoot(tb)
	tree := tb.TempDir()
	for _, dir := range []string{"modules", filepath.Join("examples", "blueprints", name)} {
		acctest.CopyTree(tb, filepath.Join(root, dir), filepath.Join(tree, dir))
	}
	tf, err := tfexec.NewTerraform(filepath.Join(tree, "examples", "blueprints", name), terraformPath(tb))
	if err != nil {
		tb.Fatal(err)
	}
	env.Setenv()
	// No CLI configuration of the machine's (a mirror or dev_overrides of another build would
	// shadow the provider under test), no checkpoint calls.
	tb.Setenv("TF_CLI_CONFIG_FILE", "")
	tb.Setenv("CHECKPOINT_DISABLE", "1")
	tb.Setenv("TF_IN_AUTOMATION", "1")
	b := &blueprint{tb: tb, name: name, tf: tf, vars: maps.Clone(vars)}
	// The blueprint's own gcs backend, on the local cloud's Cloud Storage as backend/local.hcl says.
	opts := []tfexec.InitOption{}
	for _, c := range acctest.LocalStateBackend(tb, env) {
		opts = append(opts, tfexec.BackendConfig(c))
	}
	b.run("init", func(ctx context.Context, r tfexec.ReattachInfo) error {
		return tf.Init(ctx, append(opts, tfexec.Reattach(r))...)
	})
	return b
}

// terraformPath is the terraform binary the acceptance tests run: TF_ACC_TERRAFORM_PATH, else
// terraform on PATH.
func terraformPath(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	p, err := exec.LookPath("terraform")
	if err != nil {
		tb.Fatal("terraform is not on PATH; install Terraform >= 1.9 or set TF_ACC_TERRAFORM_PATH")
	}
	return p
}

// run serves a fresh instance of the provider under test in this process for one terraform
// command, as the CLI starts a fresh provider process per command (the provider keeps per-process
// registries that must not carry over between commands), and fails the test when the command fails.
func (b *blueprint) run(what string, cmd func(context.Context, tfexec.ReattachInfo) error) {
	b.tb.Helper()
	serveCtx, stop := context.WithCancel(context.Background())
	configCh := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	factory := providerserver.NewProtocol6(provider.New("test")())
	served := make(chan error, 1)
	go func() {
		served <- tf6server.Serve(providerAddr, factory,
			tf6server.WithDebug(serveCtx, configCh, closed),
			tf6server.WithGoPluginLogger(hclog.NewNullLogger()),
			// The provider's logs follow TF_LOG and TF_ACC_LOG_PATH as in the other acceptance
			// tests: off unless asked for.
			tf6server.WithLoggingSink(logSink{b.tb}),
			tf6server.WithoutLogStderrOverride())
	}()
	var rc *plugin.ReattachConfig
	select {
	case rc = <-configCh:
	case err := <-served:
		stop()
		b.tb.Fatalf("serving the provider for terraform %s: %v", what, err)
	case <-time.After(time.Minute):
		stop()
		b.tb.Fatalf("the provider was not served for terraform %s within a minute", what)
	}
	defer func() { stop(); <-closed }()
	reattach := tfexec.ReattachInfo{providerAddr: {
		Protocol: string(rc.Protocol), ProtocolVersion: rc.ProtocolVersion, Pid: rc.Pid, Test: rc.Test,
		Addr: tfexec.ReattachConfigAddr{Network: rc.Addr.Network(), String: rc.Addr.String()},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	if err := cmd(ctx, reattach); err != nil {
		b.tb.Fatalf("%s: terraform %s: %v", b.name, what, err)
	}
}

// logSink is the test as terraform-plugin-log's sink wants it (a benchmark has no Parallel).
type logSink struct{ testing.TB }

func (logSink) Parallel() {}

func (b *blueprint) varOpts() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(b.vars)) {
		out = append(out, k+"="+b.vars[k])
	}
	return out
}

// set changes variables for this and every later command.
func (b *blueprint) set(vars map[string]string) { maps.Copy(b.vars, vars) }

// apply runs terraform apply with the blueprint's variables.
func (b *blueprint) apply() {
	b.tb.Helper()
	b.run("apply", func(ctx context.Context, r tfexec.ReattachInfo) error {
		opts := []tfexec.ApplyOption{tfexec.Reattach(r)}
		for _, v := range b.varOpts() {
			opts = append(opts, tfexec.Var(v))
		}
		return b.tf.Apply(ctx, opts...)
	})
}

// plan runs terraform plan -detailed-exitcode (with its refresh) into a plan file and returns
// whether it has changes, the plan and its human-readable rendering.
func (b *blueprint) plan() (bool, *tfjson.Plan, string) {
	b.tb.Helper()
	out := filepath.Join(b.tb.TempDir(), "plan")
	var changes bool
	var plan *tfjson.Plan
	var text string
	b.run("plan", func(ctx context.Context, r tfexec.ReattachInfo) error {
		opts := []tfexec.PlanOption{tfexec.Reattach(r), tfexec.Out(out)}
		for _, v := range b.varOpts() {
			opts = append(opts, tfexec.Var(v))
		}
		var err error
		if changes, err = b.tf.Plan(ctx, opts...); err != nil {
			return err
		}
		if plan, err = b.tf.ShowPlanFile(ctx, out, tfexec.Reattach(r)); err != nil {
			return err
		}
		text, err = b.tf.ShowPlanFileRaw(ctx, out, tfexec.Reattach(r))
		return err
	})
	if plan != nil {
		plan.Config = nil // only the changes are of interest; the rest is large at scale
	}
	b.tb.Cleanup(func() { _ = os.Remove(out) })
	b.planFile = out
	return changes, plan, text
}

// requireSettled fails unless terraform plan -detailed-exitcode exits 0: the state, refreshed
// from the cloud, matches the configuration. The failure shows the plan's diff.
func (b *blueprint) requireSettled(when string) {
	b.tb.Helper()
	if changes, _, text := b.plan(); changes {
		b.tb.Errorf("%s: terraform plan %s is not empty (-detailed-exitcode 2):\n%s", b.name, when, text)
	}
}

// applyInPlace changes variables, requires the plan to update exactly the resources named in
// want in place (no create, delete or replacement, and no other resource touched), and applies
// that saved plan, which it returns.
func (b *blueprint) applyInPlace(change string, vars map[string]string, want ...string) *tfjson.Plan {
	b.tb.Helper()
	b.set(vars)
	changes, plan, text := b.plan()
	if !changes {
		b.tb.Fatalf("%s: %s planned no change", b.name, change)
	}
	var updates, others []string
	for _, rc := range plan.ResourceChanges {
		a := rc.Change.Actions
		switch {
		case a.Update():
			updates = append(updates, rc.Address)
		case a.NoOp() || a.Read():
		default:
			others = append(others, fmt.Sprintf("%s (%v)", rc.Address, a))
		}
	}
	slices.Sort(updates)
	slices.Sort(want)
	if len(others) > 0 || !slices.Equal(updates, want) {
		b.tb.Fatalf("%s: %s is not the in-place update of %v alone: updates %v, other actions %v; plan:\n%s", b.name, change, want, updates, others, text)
	}
	b.applySaved()
	return plan
}

// applySaved applies the last plan's saved plan, as it was checked.
func (b *blueprint) applySaved() {
	b.tb.Helper()
	planFile := b.planFile
	b.run("apply (saved plan)", func(ctx context.Context, r tfexec.ReattachInfo) error {
		return b.tf.Apply(ctx, tfexec.Reattach(r), tfexec.DirOrPlan(planFile))
	})
}

// destroy runs terraform destroy with the blueprint's variables.
func (b *blueprint) destroy() {
	b.tb.Helper()
	b.run("destroy", func(ctx context.Context, r tfexec.ReattachInfo) error {
		opts := []tfexec.DestroyOption{tfexec.Reattach(r)}
		for _, v := range b.varOpts() {
			opts = append(opts, tfexec.Var(v))
		}
		return b.tf.Destroy(ctx, opts...)
	})
}
