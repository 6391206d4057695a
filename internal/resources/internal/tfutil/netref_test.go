package tfutil

import "testing"

func TestParseNetwork(t *testing.T) {
	for _, tc := range []struct{ ref, project, name string }{
		{"ml-dev", "p1", "ml-dev"},
		{"global/networks/ml-dev", "p1", "ml-dev"},
		{"projects/host/global/networks/ml-dev", "host", "ml-dev"},
		{"https://www.googleapis.com/compute/v1/projects/host/global/networks/ml-dev", "host", "ml-dev"},
	} {
		p, n, err := ParseNetwork(tc.ref, "p1")
		if err != nil || p != tc.project || n != tc.name {
			t.Errorf("ParseNetwork(%q) = %q, %q, %v; want %q, %q", tc.ref, p, n, err, tc.project, tc.name)
		}
	}
	for _, bad := range []string{"", "projects/p/networks/n", "ML", "projects//global/networks/n", "global/networks/-x"} {
		if _, _, err := ParseNetwork(bad, "p1"); err == nil {
			t.Errorf("ParseNetwork(%q) accepted", bad)
		}
	}
	if !SameNetwork("ml-dev", "https://www.googleapis.com/compute/v1/projects/p1/global/networks/ml-dev", "p1") {
		t.Error("a name and the self link of the same network differ")
	}
	if SameNetwork("ml-dev", "projects/other/global/networks/ml-dev", "p1") {
		t.Error("networks of different projects compare equal")
	}
	if got := NetworkRef("projects/p1/global/networks/ml-dev", "p1"); got != "ml-dev" {
		t.Errorf("NetworkRef in the same project = %q", got)
	}
	if got := NetworkRef("projects/host/global/networks/ml-dev", "p1"); got != "projects/host/global/networks/ml-dev" {
		t.Errorf("NetworkRef of a shared VPC = %q", got)
	}
}
