package agent

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestDriftedFilesNamesEditedAndRemovedFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		filepath.Join(dir, "slurm.conf"):  []byte("MaxJobCount=10000\n"),
		filepath.Join(dir, "gres.conf"):   []byte("# none\n"),
		filepath.Join(dir, "cgroup.conf"): []byte("CgroupPlugin=autodetect\n"),
	}
	for p, b := range files {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := driftedFiles(files); len(got) != 0 {
		t.Fatalf("files as written drifted: %v", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "slurm.conf"), []byte("MaxJobCount=12345\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "gres.conf")); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "gres.conf"), filepath.Join(dir, "slurm.conf")}
	if got := driftedFiles(files); !slices.Equal(got, want) {
		t.Fatalf("drifted %v, want %v", got, want)
	}
}
