package emulator_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The emulator owns its API shapes: no emulator code (tests and the test-only helpers under emulatortest
// aside) imports the provider's clients or their types, so a field misnamed in a client cannot be "confirmed"
// by the emulator answering with the same struct.
func TestEmulatorDoesNotImportProviderClients(t *testing.T) {
	const banned = "github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path == "emulatortest" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == banned || strings.HasPrefix(p, banned+"/") {
				t.Errorf("%s imports %s", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
