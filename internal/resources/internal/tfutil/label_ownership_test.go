package tfutil

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
)

func TestCreateMarker(t *testing.T) {
	user := map[string]string{"team": "ml"}
	marked := WithCreateMarker(user)
	if !HasCreateMarker(marked) || HasCreateMarker(user) {
		t.Errorf("marked %v, user %v", marked, user)
	}
	if len(user) != 1 {
		t.Errorf("WithCreateMarker changed its argument: %v", user)
	}
	if got := WithoutCreateMarker(marked); !maps.Equal(got, user) || !HasCreateMarker(marked) {
		t.Errorf("WithoutCreateMarker = %v (argument now %v)", got, marked)
	}
	if !HasCreateMarker(WithCreateMarker(nil)) {
		t.Error("no labels: no marker")
	}
	if HasCreateMarker(map[string]string{CreateMarkerLabel: "done"}) {
		t.Error("a marker with another value counts")
	}
}

func TestNotOurs(t *testing.T) {
	err := NotOurs("Cloud Storage bucket", "ckpt", "hypercompute_bucket", "my-project/ckpt")
	if !IsNotOurs(err) || !IsNotOurs(fmt.Errorf("creating: %w", err)) || IsNotOurs(errors.New("other")) {
		t.Fatalf("IsNotOurs does not tell the refusal apart: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"Cloud Storage bucket ckpt already exists",
		"it may be another Terraform state's, or an interrupted apply of this one",
		"If it is yours: terraform import hypercompute_bucket.<name> my-project/ckpt",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, msg)
		}
	}
}
