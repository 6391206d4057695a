package localrt

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/filestore"
	vmruntime "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/runtime"
)

// Config.DataDir backs Filestore shares without any runtime (runs anywhere, root or not).
func TestDataDirBacksFilestoreWithoutRuntime(t *testing.T) {
	dataDir := t.TempDir()
	env := emulatortest.Start(t, emulatortest.WithConfig(func(c *emulator.Config) { c.DataDir = dataDir }))
	if env.Runtime != nil || env.Emulator.Runtime() != nil {
		t.Fatal("a runtime is attached without WithLocalRuntime")
	}
	if _, _, ok := env.Emulator.LocalRuntimeConfig(); ok {
		t.Fatal("LocalRuntimeConfig reports a runtime in API-only mode")
	}
	c := newCloud(t, env.URL)
	c.env = env
	c.network()
	c.privateServiceAccess()
	name, _ := c.createFilestore("home", "home")
	dir, ok := env.Server.Component(filestore.ComponentName).(*filestore.Service).BackingDir(name, "home")
	if !ok {
		t.Fatalf("no backing directory for %s", name)
	}
	if rel, err := filepath.Rel(dataDir, dir); err != nil || !filepath.IsLocal(rel) {
		t.Errorf("backing dir %s is not under the data dir %s", dir, dataDir)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Errorf("backing dir %s: %v", dir, err)
	}
}

// Where the runtime cannot run, New says why with an error callers can recognise.
func TestLocalRuntimeUnavailableIsRecognisable(t *testing.T) {
	reason := emulator.LocalRuntimeAvailable()
	if reason == nil {
		t.Skip("the local runtime can run here; the other tests cover it")
	}
	if !errors.Is(reason, vmruntime.ErrUnavailable) {
		t.Errorf("LocalRuntimeAvailable() = %v, not ErrUnavailable", reason)
	}
	_, err := emulator.New(emulator.Config{LocalRuntime: &emulator.LocalRuntimeConfig{}})
	if !errors.Is(err, vmruntime.ErrUnavailable) {
		t.Errorf("New with a local runtime here = %v, want ErrUnavailable", err)
	}
}
