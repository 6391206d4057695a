package blueprints_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/policy"
)

// unprotected is the deletion_protection rule's message for a protected resource turned off in ml-prod.
const unprotected = "deletion_protection = false: in ml-prod storage and clusters must refuse deletion; set deletion_protection = true"

// applyCompliant is the pipeline's plan → policy → apply: it plans, requires the plan to pass the
// policies of env (policies/, as `hypercompute-policy check -env ENV` runs them), and applies that
// saved plan.
func (b *blueprint) applyCompliant(env string) {
	b.tb.Helper()
	changes, plan, _ := b.plan()
	if !changes {
		b.tb.Fatalf("%s: the first plan has no changes", b.name)
	}
	requirePolicy(b.tb, env, plan)
	b.applySaved()
}

// requirePolicy checks a plan against the policies of env and fails unless its violations are
// exactly want. The plan is terraform show -json's document as terraform-json reads it, written
// back to JSON.
func requirePolicy(tb testing.TB, env string, plan *tfjson.Plan, want ...policy.Violation) {
	tb.Helper()
	doc, err := json.Marshal(plan)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := policy.Embedded()
	if err != nil {
		tb.Fatal(err)
	}
	res, err := p.Check(context.Background(), env, doc)
	if err != nil {
		tb.Fatal(err)
	}
	if res.Judged == 0 {
		tb.Fatalf("%s policy judged no resource change of the plan", env)
	}
	if !slices.Equal(res.Violations, want) {
		var got []string
		for _, v := range res.Violations {
			got = append(got, v.String())
		}
		tb.Fatalf("%s policy: violations\n  %s\nwant %v", env, strings.Join(got, "\n  "), want)
	}
}
