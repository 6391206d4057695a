package acctest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RepoRoot is the directory holding go.mod above the test's directory: where tests find
// examples/, modules/ and pipelines/ from any checkout location.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test's directory: cannot find the repository's root")
		}
		dir = parent
	}
}

// CopyTree copies the files under src to dst with their modes, leaving out what terraform commands
// run in the checkout leave behind (.terraform/, lock files, state), so a test drives a copy of
// configurations or scripts and writes nothing into the checkout.
func CopyTree(tb testing.TB, src, dst string) {
	tb.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == ".terraform" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if d.Name() == ".terraform.lock.hcl" || strings.Contains(d.Name(), ".tfstate") || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, info.Mode().Perm())
	})
	if err != nil {
		tb.Fatalf("copy %s: %v", src, err)
	}
}
