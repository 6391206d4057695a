package catalog

import (
	"fmt"
	"strings"
	"testing"
)

func TestValidateLabels(t *testing.T) {
	valid := map[string]string{
		"env": "prod", "team_a": "", "cost-center": "42", "a": strings.Repeat("v", 63),
		"k" + strings.Repeat("x", 62): "x", "日本": "東京", "été": "ça-va",
	}
	if err := ValidateLabels(valid); err != nil {
		t.Fatalf("valid labels refused: %v", err)
	}
	if err := ValidateLabels(nil); err != nil {
		t.Fatalf("no labels refused: %v", err)
	}
	for _, tc := range []struct {
		labels map[string]string
		want   string
	}{
		{map[string]string{"Env": "x"}, `label key "Env" is invalid: it contains uppercase letters`},
		{map[string]string{"": "x"}, `label key "" is invalid: it is empty`},
		{map[string]string{"1env": "x"}, `label key "1env" is invalid: it does not start with a lowercase letter`},
		{map[string]string{"_env": "x"}, `label key "_env" is invalid: it does not start with a lowercase letter`},
		{map[string]string{"team.name": "x"}, `label key "team.name" is invalid: it contains '.'`},
		{map[string]string{"k" + strings.Repeat("x", 63): "x"}, `is invalid: it is 64 characters long; keys must be 1-63 characters`},
		{map[string]string{"env": "Prod"}, `the value "Prod" of label "env" is invalid: it contains uppercase letters`},
		{map[string]string{"env": "a b"}, `the value "a b" of label "env" is invalid: it contains ' '`},
		{map[string]string{"env": strings.Repeat("v", 64)}, `of label "env" is invalid: it is 64 characters long`},
		{map[string]string{"b": "OK", "a": "Bad"}, `label "a"`}, // the first key in sorted order is named
	} {
		err := ValidateLabels(tc.labels)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ValidateLabels(%v) = %v; want it to contain %q", tc.labels, err, tc.want)
		}
	}
	many := map[string]string{}
	for i := range MaxLabels {
		many[fmt.Sprintf("l%d", i)] = "v"
	}
	if err := ValidateLabels(many); err != nil {
		t.Errorf("%d labels refused: %v", MaxLabels, err)
	}
	many["one-more"] = "v"
	if err := ValidateLabels(many); err == nil || !strings.Contains(err.Error(), "65 labels are set; a resource may carry at most 64") {
		t.Errorf("65 labels: %v", err)
	}
}
