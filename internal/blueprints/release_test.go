package blueprints_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"text/template"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/release"
)

// releaseBuild is what tools/release.sh VERSION built for this machine's platform: dist/ as the
// registry takes it, dist-agents/ as the launcher fetches it.
type releaseBuild struct {
	version  string
	platform string // os_arch, as Terraform names platforms
	dist     string
	agents   string
	names    releaseNames
	// sums are SHA256SUMS: file name → hex digest.
	sums map[string]string
}

func (r *releaseBuild) zipName() string    { return r.names.zip }
func (r *releaseBuild) binaryName() string { return r.names.binary }

// agentPath is the agent binary for linux/arch under the name its release URL ends in.
func (r *releaseBuild) agentPath(arch string) string {
	return filepath.Join(r.agents, path.Base(release.AgentURL(r.version, arch)))
}

// releaseNames are the names .goreleaser.yml gives a release's provider files for one platform,
// rendered from its own templates (goreleaser's are Go text/templates).
type releaseNames struct{ binary, zip, sums, manifest string }

func goreleaserNames(t *testing.T, version, platform string) releaseNames {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(acctest.RepoRoot(t), ".goreleaser.yml"))
	if err != nil {
		t.Fatal(err)
	}
	type named struct {
		ID           string   `yaml:"id"`
		Binary       string   `yaml:"binary"`
		Formats      []string `yaml:"formats"`
		NameTemplate string   `yaml:"name_template"`
	}
	var cfg struct {
		ProjectName string  `yaml:"project_name"`
		Builds      []named `yaml:"builds"`
		Archives    []named `yaml:"archives"`
		Checksum    struct {
			NameTemplate string  `yaml:"name_template"`
			ExtraFiles   []named `yaml:"extra_files"`
		} `yaml:"checksum"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf(".goreleaser.yml: %v", err)
	}
	osName, arch, _ := strings.Cut(platform, "_")
	data := map[string]string{"ProjectName": cfg.ProjectName, "Version": version, "Os": osName, "Arch": arch}
	render := func(what, tmpl string) string {
		var out strings.Builder
		tp, err := template.New(what).Option("missingkey=error").Parse(tmpl)
		if err == nil {
			err = tp.Execute(&out, data)
		}
		if err != nil || tmpl == "" {
			t.Fatalf(".goreleaser.yml: %s name template %q: %v", what, tmpl, err)
		}
		return out.String()
	}
	byID := func(list []named, id string) named {
		i := slices.IndexFunc(list, func(n named) bool { return n.ID == id })
		if i < 0 {
			t.Fatalf(".goreleaser.yml has no %q entry", id)
		}
		return list[i]
	}
	n := releaseNames{
		binary: render("binary", byID(cfg.Builds, "provider").Binary),
		zip:    render("archive", byID(cfg.Archives, "provider").NameTemplate) + ".zip",
		sums:   render("checksum", cfg.Checksum.NameTemplate),
	}
	if f := byID(cfg.Archives, "provider").Formats; !slices.Equal(f, []string{"zip"}) {
		t.Fatalf(".goreleaser.yml: the provider's archives are %v; the registry takes zip", f)
	}
	if len(cfg.Checksum.ExtraFiles) != 1 {
		t.Fatalf(".goreleaser.yml: checksum.extra_files should hold the registry manifest alone")
	}
	n.manifest = render("manifest", cfg.Checksum.ExtraFiles[0].NameTemplate)
	return n
}

// buildRelease runs tools/release.sh for this machine's platform alone into a temporary directory
// and checks the layout a registry or mirror consumes: every file named as .goreleaser.yml names
// it, SHA256SUMS listing each of them with its digest, the manifest, the provider's zip holding
// the versioned binary, and the agent.
func buildRelease(t *testing.T, version string) *releaseBuild {
	t.Helper()
	out := t.TempDir()
	r := &releaseBuild{version: version, platform: runtime.GOOS + "_" + runtime.GOARCH,
		dist: filepath.Join(out, "dist"), agents: filepath.Join(out, "dist-agents")}
	r.names = goreleaserNames(t, version, r.platform)
	cmd := exec.Command("bash", filepath.Join(acctest.RepoRoot(t), "tools", "release.sh"), version)
	// This platform's zip, the amd64 agent the controller is planned with, no emulator tarball:
	// from a cold build cache (CI) the other agent and the emulator would double the build.
	cmd.Env = append(os.Environ(), "RELEASE_PLATFORMS="+r.platform, "RELEASE_AGENT_ARCHES=amd64", "RELEASE_TOOLS=0",
		"RELEASE_DIR="+out, "GPG_FINGERPRINT=")
	start := time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tools/release.sh %s: %v\n%s", version, err, b)
	}
	t.Logf("tools/release.sh %s for %s took %s", version, r.platform, time.Since(start).Round(time.Second))

	sumsName, manifestName := r.names.sums, r.names.manifest
	r.sums = readSums(t, filepath.Join(r.dist, sumsName))
	want := []string{r.zipName(), manifestName}
	slices.Sort(want)
	if got := slices.Sorted(maps.Keys(r.sums)); !slices.Equal(got, want) {
		t.Fatalf("SHA256SUMS lists %v, want %v", got, want)
	}
	entries, err := os.ReadDir(r.dist)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == sumsName {
			continue
		}
		if got := fileSHA256(t, filepath.Join(r.dist, e.Name())); got != r.sums[e.Name()] {
			t.Errorf("dist/%s: sha256 %s, SHA256SUMS says %q", e.Name(), got, r.sums[e.Name()])
		}
	}
	manifest, err := os.ReadFile(filepath.Join(acctest.RepoRoot(t), "terraform-registry-manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(r.dist, manifestName)); !bytes.Equal(got, manifest) {
		t.Errorf("the release's manifest is not terraform-registry-manifest.json:\n%s", got)
	}
	zr, err := zip.OpenReader(filepath.Join(r.dist, r.zipName()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = zr.Close() }()
	if i := slices.IndexFunc(zr.File, func(f *zip.File) bool { return f.Name == r.binaryName() }); i < 0 || zr.File[i].Mode()&0o100 == 0 {
		t.Errorf("%s holds no executable %s", r.zipName(), r.binaryName())
	}
	if _, err := os.Stat(r.agentPath("amd64")); err != nil {
		t.Errorf("the release has no amd64 agent: %v", err)
	}
	return r
}

// readSums parses a SHA256SUMS file ("<hex>  <name>" lines).
func readSums(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the release has no SHA256SUMS: %v", err)
	}
	defer func() { _ = f.Close() }()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("%s: malformed line %q", filepath.Base(path), sc.Text())
		}
		sums[name] = sum
	}
	return sums
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}
