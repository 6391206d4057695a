package producer

import "testing"

func TestMaskPaths(t *testing.T) {
	got := MaskPaths("description, fileShares,deletion_protection_enabled,,capacityGib")
	want := []string{"description", "file_shares", "deletion_protection_enabled", "capacity_gib"}
	if len(got) != len(want) {
		t.Fatalf("MaskPaths = %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("MaskPaths = %v, want %v", got, want)
		}
	}
}

func TestJoinSubpath(t *testing.T) {
	if d, ok := JoinSubpath("/data/x", "a/b"); !ok || d != "/data/x/a/b" {
		t.Errorf("subdir: %s %v", d, ok)
	}
	if d, ok := JoinSubpath("/data/x", ""); !ok || d != "/data/x" {
		t.Errorf("root: %s %v", d, ok)
	}
	if _, ok := JoinSubpath("/data/x", "a/../../etc"); ok {
		t.Error("a path climbing out of the export was accepted")
	}
}

func TestValidateLabels(t *testing.T) {
	if err := ValidateLabels("instance.labels", map[string]string{"env": "prod", "team_a": ""}); err != nil {
		t.Fatalf("valid labels: %v", err)
	}
	for _, bad := range []map[string]string{{"Env": "x"}, {"env": "Prod"}, {"": "x"}, {"1env": "x"}} {
		if err := ValidateLabels("instance.labels", bad); err == nil || err.Code != 400 {
			t.Errorf("labels %v accepted", bad)
		}
	}
}
