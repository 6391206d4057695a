package tfutil

import (
	"maps"
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
