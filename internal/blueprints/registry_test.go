package blueprints_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tfjson "github.com/hashicorp/terraform-json"
	"golang.org/x/mod/sumdb/dirhash"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/release"
)

// releaseVersion is the version the test releases: one the modules' `version = "~> 0.1"` takes.
const releaseVersion = "0.1.0"

// ml-dev applied as a team consuming a release applies it: tools/release.sh builds the release,
// a provider network mirror serves it, plain `terraform init` (no dev_overrides, no reattached
// provider) installs the provider from the mirror, verifies it against SHA256SUMS' digest and
// writes .terraform.lock.hcl, and installs a module pinned by tag (git::…?ref=v<version>) from a
// repository of this checkout's modules/. The provider then runs as the plugin process terraform
// starts, against the in-process local cloud: apply, an empty plan, destroy. The release's
// provider names its own agent build (digests baked in at release time), so ml-dev's
// `agent = null` plans that agent. A mirror serving a zip that is not the release's is refused.
func TestAccBlueprint_mlDevFromRelease(t *testing.T) {
	env := acctest.New(t)
	acctest.StartFakeAgent(t, env.Env)
	acctest.StartFakeJobs(t, env, "ml-dev")
	rel := buildRelease(t, releaseVersion)
	m := serveMirror(t, rel)
	repo := moduleRepo(t, releaseVersion)
	before := inventory(t, env.Env)

	// A mirror whose zip differs from the release's digest: init installs nothing.
	bad := newCLI(t, env, m.URL+strings.TrimPrefix(tamperedBase, "/"), m.CAFile)
	pinned := t.TempDir()
	writeFile(t, filepath.Join(pinned, "main.tf"), `terraform {
  required_providers {
    hypercompute = {
      source  = "hypercompute/hypercompute"
      version = "`+releaseVersion+`"
    }
  }
}
`)
	if out, err := bad.run(pinned, "init", "-input=false"); err == nil || !strings.Contains(out, "zh:"+rel.sums[rel.zipName()]) {
		t.Errorf("terraform init from a mirror serving a tampered zip: err %v, want a mismatch with SHA256SUMS' zh:%s; output:\n%s", err, rel.sums[rel.zipName()], out)
	} else {
		t.Logf("terraform init from a mirror serving a tampered zip refused it:\n%s", out)
	}

	tf := newCLI(t, env, m.URL, m.CAFile)
	dir := consumer(t, repo, releaseVersion)
	// The blueprint's gcs backend keeps the state in the local cloud's Cloud Storage, as a
	// pipeline's init does with backend/<env>.hcl.
	initArgs := []string{"init", "-input=false"}
	for _, c := range acctest.LocalStateBackend(t, env.Env) {
		initArgs = append(initArgs, "-backend-config="+c)
	}
	tf.must(dir, initArgs...)
	requireInstalled(t, dir, rel)
	requireModule(t, dir, repo, releaseVersion)

	vars := []string{"-var", "project_id=" + acctest.Project, "-var", "deletion_protection=false", "-var", "training_steps=20"}
	tf.must(dir, append([]string{"apply", "-auto-approve", "-input=false"}, vars...)...)
	requireVMs(t, env.Env, "ml-dev-debug", 2)
	state := tf.state(dir)
	for _, addr := range []string{"hypercompute_training_cluster.ml", "hypercompute_recipe_job.tiny_gpt", "module.eval.hypercompute_node_partition.this"} {
		if findResource(state.Values.RootModule, addr) == nil {
			t.Errorf("the state holds no %s after the apply", addr)
		}
	}
	requireReleaseAgent(t, env, rel)

	if out, err := tf.run(dir, append([]string{"plan", "-detailed-exitcode", "-input=false"}, vars...)...); err != nil {
		t.Errorf("terraform plan after the apply is not empty (%v):\n%s", err, out)
	}
	tf.must(dir, append([]string{"destroy", "-auto-approve", "-input=false"}, vars...)...)
	requireEmptied(t, env.Env, before)
}

// cli runs the terraform binary as a user does, with a CLI configuration whose only provider
// installation method is one network mirror.
type cli struct {
	t   *testing.T
	bin string
	env []string
}

func newCLI(t *testing.T, env *acctest.Env, mirrorURL, caFile string) *cli {
	t.Helper()
	rc := filepath.Join(t.TempDir(), "terraformrc")
	writeFile(t, rc, fmt.Sprintf(`provider_installation {
  network_mirror {
    url     = %q
    include = ["registry.terraform.io/hypercompute/hypercompute"]
  }
}
`, mirrorURL))
	// Nothing of the machine's Terraform settings (a CLI config, a plugin cache, reattached
	// providers) may stand in for the mirror; TF_LOG stays for debugging.
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TF_") || strings.HasPrefix(kv, "TF_LOG") {
			base = append(base, kv)
		}
	}
	return &cli{t: t, bin: terraformPath(t), env: append(base,
		"TF_CLI_CONFIG_FILE="+rc,
		"TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1",
		// Trust the mirror's certificate (and nothing else: no other host is reached).
		"SSL_CERT_FILE="+caFile,
		// The provider, a plugin process of terraform's, finds the local cloud by this.
		"HYPERCOMPUTE_EMULATOR_HOST="+env.Host,
	)}
}

// run runs terraform in dir and returns its combined output.
func (c *cli) run(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	// Plain text in the test's log: -no-color right after the subcommand.
	args = append([]string{args[0], "-no-color"}, args[1:]...)
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Dir, cmd.Env = dir, c.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// must runs terraform in dir and fails the test with its output when it fails.
func (c *cli) must(dir string, args ...string) string {
	c.t.Helper()
	start := time.Now()
	out, err := c.run(dir, args...)
	if err != nil {
		c.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	c.t.Logf("terraform %s: %s", args[0], time.Since(start).Round(100*time.Millisecond))
	return out
}

func (c *cli) state(dir string) *tfjson.State {
	c.t.Helper()
	var s tfjson.State
	if err := json.Unmarshal([]byte(c.must(dir, "show", "-json")), &s); err != nil {
		c.t.Fatal(err)
	}
	if s.Values == nil || s.Values.RootModule == nil {
		c.t.Fatal("terraform show -json: the state is empty")
	}
	return &s
}

func findResource(m *tfjson.StateModule, addr string) *tfjson.StateResource {
	for _, r := range m.Resources {
		if r.Address == addr {
			return r
		}
	}
	for _, child := range m.ChildModules {
		if r := findResource(child, addr); r != nil {
			return r
		}
	}
	return nil
}

// moduleRepo makes a git repository of this checkout's modules/ tagged v<version>, the way the
// project's repository is tagged at a release, then commits a change after the tag: a module
// pinned by ?ref= must come from the tag, not from the branch. It is made from the working tree's
// files, so it needs no clone of the checkout and works wherever the checkout lies.
func moduleRepo(t *testing.T, version string) string {
	t.Helper()
	repo := t.TempDir()
	acctest.CopyTree(t, filepath.Join(acctest.RepoRoot(t), "modules"), filepath.Join(repo, "modules"))
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		// The machine's git configuration (signing, hooks, templates) is not the test's.
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=release", "GIT_AUTHOR_EMAIL=release@example.com",
			"GIT_COMMITTER_NAME=release", "GIT_COMMITTER_EMAIL=release@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "modules")
	git("commit", "-q", "-m", "hypercompute modules "+version)
	git("tag", "v"+version)
	f, err := os.OpenFile(filepath.Join(repo, "modules", "gpu-partition", "main.tf"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString("\n# unreleased: after v" + version + "\n")
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		t.Fatal(err)
	}
	git("commit", "-q", "-a", "-m", "unreleased change")
	return repo
}

// moduleSource is how a consumer pins a module of the repository at a release.
func moduleSource(repo, module, version string) string {
	return "git::file://" + filepath.ToSlash(repo) + "//modules/" + module + "?ref=v" + version
}

// consumer is a copy of examples/blueprints/ml-dev plus an evaluation partition from the released
// gpu-partition module, pinned by tag.
func consumer(t *testing.T, repo, version string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ml-dev")
	acctest.CopyTree(t, filepath.Join(acctest.RepoRoot(t), "examples", "blueprints", "ml-dev"), dir)
	writeFile(t, filepath.Join(dir, "eval.tf"), fmt.Sprintf(`# L4 Spot nodes for evaluation from the released gpu-partition module, pinned to a release.
module "eval" {
  source = %q

  cluster                  = hypercompute_training_cluster.ml.id
  cluster_node_config_hash = hypercompute_training_cluster.ml.node_config_hash
  name                     = "eval"
  machine_type             = "g2-standard-24"
  provisioning_model       = "spot"
  max_dynamic_node_count   = 2
}
`, moduleSource(repo, "gpu-partition", version)))
	return dir
}

// requireInstalled checks what init installed: the release's binary at the release's version, and
// a lock file whose hashes are the release's zip: zh: as in SHA256SUMS, h1: of its contents.
func requireInstalled(t *testing.T, dir string, rel *releaseBuild) {
	t.Helper()
	bin := filepath.Join(dir, ".terraform", "providers", "registry.terraform.io", "hypercompute", "hypercompute",
		rel.version, rel.platform, rel.binaryName())
	if got, want := fileSHA256(t, bin), zipEntrySHA256(t, filepath.Join(rel.dist, rel.zipName()), rel.binaryName()); got != want {
		t.Errorf("installed provider %s: sha256 %s, the release's binary is %s", bin, got, want)
	}
	lock, err := os.ReadFile(filepath.Join(dir, ".terraform.lock.hcl"))
	if err != nil {
		t.Fatalf("terraform init wrote no lock file: %v", err)
	}
	version, constraints, hashes := lockedProvider(t, string(lock), "registry.terraform.io/hypercompute/hypercompute")
	h1, err := dirhash.HashZip(filepath.Join(rel.dist, rel.zipName()), dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}
	// From a network mirror Terraform records the h1: hash of the package it verified against
	// the mirror's zh: digest (a registry would add every platform's zh: from SHA256SUMS).
	wrongZH := slices.ContainsFunc(hashes, func(h string) bool {
		sum, ok := strings.CutPrefix(h, "zh:")
		return ok && !slices.Contains(slices.Collect(maps.Values(rel.sums)), sum)
	})
	if version != rel.version || constraints != "~> 0.1" || !slices.Contains(hashes, h1) || wrongZH {
		t.Errorf("lock file: version %q constraints %q hashes %v; want %s, \"~> 0.1\" (the modules'), %s (the release zip's contents) and no zh: hash outside SHA256SUMS:\n%s",
			version, constraints, hashes, rel.version, h1, lock)
	}
}

var (
	lockVersion     = regexp.MustCompile(`(?m)^\s*version\s*=\s*"([^"]*)"`)
	lockConstraints = regexp.MustCompile(`(?m)^\s*constraints\s*=\s*"([^"]*)"`)
	lockHashes      = regexp.MustCompile(`(?s)hashes\s*=\s*\[(.*?)\]`)
	quoted          = regexp.MustCompile(`"([^"]*)"`)
)

// lockedProvider reads one provider block of a .terraform.lock.hcl.
func lockedProvider(t *testing.T, lock, addr string) (version, constraints string, hashes []string) {
	t.Helper()
	_, block, ok := strings.Cut(lock, `provider "`+addr+`" {`)
	if !ok {
		t.Fatalf("the lock file has no provider %q:\n%s", addr, lock)
	}
	block, _, _ = strings.Cut(block, "\n}")
	if m := lockVersion.FindStringSubmatch(block); m != nil {
		version = m[1]
	}
	if m := lockConstraints.FindStringSubmatch(block); m != nil {
		constraints = m[1]
	}
	if m := lockHashes.FindStringSubmatch(block); m != nil {
		for _, q := range quoted.FindAllStringSubmatch(m[1], -1) {
			hashes = append(hashes, q[1])
		}
	}
	return version, constraints, hashes
}

// requireModule checks that init installed module.eval from the tag, not from the branch's head.
func requireModule(t *testing.T, dir, repo, version string) {
	t.Helper()
	var manifest struct {
		Modules []struct{ Key, Source, Dir string }
	}
	b, err := os.ReadFile(filepath.Join(dir, ".terraform", "modules", "modules.json"))
	if err == nil {
		err = json.Unmarshal(b, &manifest)
	}
	if err != nil {
		t.Fatalf("terraform init recorded no modules: %v", err)
	}
	i := slices.IndexFunc(manifest.Modules, func(m struct{ Key, Source, Dir string }) bool { return m.Key == "eval" })
	if i < 0 || manifest.Modules[i].Source != moduleSource(repo, "gpu-partition", version) {
		t.Fatalf("modules.json does not record module.eval from %s:\n%s", moduleSource(repo, "gpu-partition", version), b)
	}
	got, err := os.ReadFile(filepath.Join(dir, manifest.Modules[i].Dir, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(acctest.RepoRoot(t), "modules", "gpu-partition", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("module.eval's main.tf is not the one tagged v%s (a later commit's?):\n%s", version, got)
	}
}

// requireReleaseAgent checks that the controller's node config names the release's agent build
// (its URL and the digest of dist-agents' binary): the provider from the zip carries the digests
// tools/release.sh baked in, so ml-dev's agent = null takes that build.
func requireReleaseAgent(t *testing.T, env *acctest.Env, rel *releaseBuild) {
	t.Helper()
	v, ok := env.ControllerKey("ml-dev", cc.NodeConfigKey)
	var node cc.Node
	if !ok || json.Unmarshal([]byte(v), &node) != nil {
		t.Fatalf("the controller has no readable %s metadata: %q", cc.NodeConfigKey, v)
	}
	want := cc.AgentRef{Version: rel.version, URL: release.AgentURL(rel.version, "amd64"), SHA256: fileSHA256(t, rel.agentPath("amd64"))}
	if got := node.Agent; got.Version != want.Version || got.URL != want.URL || got.SHA256 != want.SHA256 {
		t.Errorf("the controller runs agent %+v, want the release's %+v", got, want)
	}
}

func zipEntrySHA256(t *testing.T, zipPath, name string) string {
	t.Helper()
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = zr.Close() }()
	f, err := zr.Open(name)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(zipPath), err)
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
