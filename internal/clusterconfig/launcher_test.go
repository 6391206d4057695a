package clusterconfig_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// fakeAgent records the arguments it was started with.
const fakeAgent = "#!/bin/sh\necho \"agent ran: $*\" > \"$AGENT_MARKER\"\n"

type launcherEnv struct {
	agentURL   string
	downloads  atomic.Int32
	mu         sync.Mutex
	attributes map[string]string
	metadata   string // host:port for GCE_METADATA_HOST
}

func newLauncherEnv(t *testing.T, served []byte) *launcherEnv {
	env := &launcherEnv{attributes: map[string]string{}}
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/agent" {
			http.NotFound(w, r)
			return
		}
		env.downloads.Add(1)
		w.Write(served)
	}))
	t.Cleanup(files.Close)
	md := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		const prefix = "/computeMetadata/v1/instance/guest-attributes/"
		if r.Method != http.MethodPut || r.Header.Get("Metadata-Flavor") != "Google" || !strings.HasPrefix(r.URL.Path, prefix) {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		body, _ := io.ReadAll(r.Body)
		env.mu.Lock()
		env.attributes[strings.TrimPrefix(r.URL.Path, prefix)] = string(body)
		env.mu.Unlock()
	}))
	t.Cleanup(md.Close)
	env.agentURL = files.URL + "/agent"
	env.metadata = strings.TrimPrefix(md.URL, "http://")
	return env
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// runLauncher runs the rendered launcher with sh (dash on Debian, so
// bashisms fail here) and returns its exit code, stderr and the marker.
func runLauncher(t *testing.T, ref cc.AgentRef, env *launcherEnv, dir string) (code int, stderr, marker string) {
	t.Helper()
	script, err := cc.RenderLauncher(ref)
	if err != nil {
		t.Fatal(err)
	}
	markerFile := filepath.Join(t.TempDir(), "marker")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", string(script))
	cmd.Env = append(os.Environ(), "HYPERCOMPUTE_AGENT_DIR="+dir, "GCE_METADATA_HOST="+env.metadata, "AGENT_MARKER="+markerFile)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	m, _ := os.ReadFile(markerFile)
	return code, errb.String(), string(m)
}

func requireLauncherTools(t *testing.T) {
	for _, tool := range []string{"sh", "curl", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("the launcher tests use an x86_64 agent build")
	}
}

func TestLauncherFetchesVerifiesAndRunsTheAgent(t *testing.T) {
	requireLauncherTools(t)
	agent := []byte(fakeAgent)
	env := newLauncherEnv(t, agent)
	dir := t.TempDir()
	ref := cc.AgentRef{Version: "1.2.3", URL: env.agentURL, SHA256: sha(agent)}
	code, stderr, marker := runLauncher(t, ref, env, dir)
	if code != 0 || marker != "agent ran: start\n" {
		t.Fatalf("exit %d, marker %q, stderr:\n%s", code, marker, stderr)
	}
	installed, err := os.ReadFile(filepath.Join(dir, "hypercompute-agent-1.2.3"))
	if err != nil || !bytes.Equal(installed, agent) {
		t.Errorf("installed agent: %v", err)
	}
	// A reboot reuses the verified binary instead of downloading again.
	if code, stderr, _ := runLauncher(t, ref, env, dir); code != 0 || env.downloads.Load() != 1 || !strings.Contains(stderr, "already installed") {
		t.Errorf("second run: exit %d, %d downloads, stderr:\n%s", code, env.downloads.Load(), stderr)
	}
	// An agent baked into the image is copied from its path.
	local := filepath.Join(t.TempDir(), "agent")
	os.WriteFile(local, agent, 0o644)
	if code, stderr, marker := runLauncher(t, cc.AgentRef{Version: "1.2.4", URL: local, SHA256: sha(agent)}, env, dir); code != 0 || marker != "agent ran: start\n" {
		t.Errorf("local agent: exit %d, marker %q, stderr:\n%s", code, marker, stderr)
	}
}

func TestLauncherRefusesAMismatchingAgentLoudly(t *testing.T) {
	requireLauncherTools(t)
	served := []byte("#!/bin/sh\necho tampered > \"$AGENT_MARKER\"\n")
	env := newLauncherEnv(t, served)
	dir := t.TempDir()
	want := strings.Repeat("0", 64)
	code, stderr, marker := runLauncher(t, cc.AgentRef{Version: "1.2.3", URL: env.agentURL, SHA256: want}, env, dir)
	msg := "agent sha256 mismatch for " + env.agentURL + ": got " + sha(served) + ", expected " + want + "; refusing to run it"
	if code != 1 || marker != "" || !strings.Contains(stderr, "hypercompute-launcher: "+msg) {
		t.Errorf("exit %d, marker %q, stderr:\n%s", code, marker, stderr)
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.attributes["hypercompute/phase"] != cc.PhaseLauncherFailed || env.attributes["hypercompute/error"] != msg {
		t.Errorf("guest attributes = %v; the provider must learn why", env.attributes)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a rejected download was left behind: %v", entries)
	}
}

func TestLauncherReportsDownloadAndArchFailures(t *testing.T) {
	requireLauncherTools(t)
	env := newLauncherEnv(t, nil)
	code, stderr, _ := runLauncher(t, cc.AgentRef{Version: "1", URL: strings.Replace(env.agentURL, "/agent", "/missing", 1), SHA256: strings.Repeat("a", 64)}, env, t.TempDir())
	if code != 1 || !strings.Contains(stderr, "cannot download the agent from ") || !strings.Contains(stderr, "(curl exit status 22)") {
		t.Errorf("404: exit %d, stderr:\n%s", code, stderr)
	}
	code, stderr, _ = runLauncher(t, cc.AgentRef{Version: "1", Arch: "arm64", URL: env.agentURL, SHA256: strings.Repeat("a", 64)}, env, t.TempDir())
	if code != 1 || !strings.Contains(stderr, "this VM is x86_64 but the agent build 1 is for arm64") {
		t.Errorf("arch: exit %d, stderr:\n%s", code, stderr)
	}
	if env.downloads.Load() != 0 {
		t.Error("the launcher downloaded an agent for the wrong architecture")
	}
}

// An agent published to a bucket (gs://BUCKET/OBJECT, as releases publish it by digest) is fetched through
// the Cloud Storage JSON API with the VM's own token; on the local cloud that is the emulator's, which holds
// the token to the VM's scopes, wherever the repository happens to be checked out.
func TestLauncherFetchesTheAgentFromABucket(t *testing.T) {
	requireLauncherTools(t)
	agent := []byte(fakeAgent)
	env := newLauncherEnv(t, nil)
	emu := emulatortest.Start(t)
	post := func(url, contentType string, body []byte) {
		t.Helper()
		resp, err := http.Post(emu.URL+url, contentType, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("POST %s: %s %s", url, resp.Status, b)
		}
	}
	post("/storage/v1/b?project=hc-launcher", "application/json", []byte(`{"name":"hc-agents"}`))
	object := "agents/" + sha(agent) + "/hypercompute-agent"
	post("/upload/storage/v1/b/hc-agents/o?uploadType=media&name="+object, "application/octet-stream", agent)

	t.Setenv("HYPERCOMPUTE_EMULATOR_HOST", emu.Host)
	env.metadata = emu.ScopedVM(t, "reader", []string{"https://www.googleapis.com/auth/devstorage.read_only"})
	dir := t.TempDir()
	ref := cc.AgentRef{Version: "1.2.3", URL: "gs://hc-agents/" + object, SHA256: sha(agent)}
	code, stderr, marker := runLauncher(t, ref, env, dir)
	if code != 0 || marker != "agent ran: start\n" {
		t.Fatalf("exit %d, marker %q, stderr:\n%s", code, marker, stderr)
	}
	if n := emu.CallCount("storage.objects.get"); n != 1 {
		t.Errorf("storage.objects.get called %d times; want 1", n)
	}
	// A missing object fails loudly with the URL, as a missing https:// download does.
	missing := cc.AgentRef{Version: "1.2.4", URL: "gs://hc-agents/agents/none/hypercompute-agent", SHA256: sha(agent)}
	if code, stderr, _ := runLauncher(t, missing, env, t.TempDir()); code != 1 || !strings.Contains(stderr, "cannot download the agent from gs://hc-agents/agents/none/hypercompute-agent (curl exit status 22)") {
		t.Errorf("missing object: exit %d, stderr:\n%s", code, stderr)
	}
	// A VM whose scopes hold no storage scope cannot read the bucket (403), nor can one without a service
	// account get a token at all.
	env.metadata = emu.ScopedVM(t, "no-storage", []string{"https://www.googleapis.com/auth/logging.write"})
	if code, stderr, _ := runLauncher(t, ref, env, t.TempDir()); code != 1 || !strings.Contains(stderr, "(curl exit status 22)") {
		t.Errorf("no storage scope: exit %d, stderr:\n%s", code, stderr)
	}
	env.metadata = emu.ScopedVM(t, "no-account", nil)
	if code, stderr, _ := runLauncher(t, ref, env, t.TempDir()); code != 1 || !strings.Contains(stderr, "cannot get an access token for the VM's service account") {
		t.Errorf("no service account: exit %d, stderr:\n%s", code, stderr)
	}
}
