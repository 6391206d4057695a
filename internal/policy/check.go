package policy

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// Violation is one denial of a rule: the rule's id, the resource address (module path included,
// as terraform prints it) and the rule's message.
type Violation struct {
	Rule    string `json:"rule"`
	Address string `json:"address"`
	Msg     string `json:"msg"`
}

// String is how the policy stage prints a violation.
func (v Violation) String() string { return fmt.Sprintf("DENY [%s] %s: %s", v.Rule, v.Address, v.Msg) }

// Result is one plan checked in one environment.
type Result struct {
	Environment string
	// Rules are the rules enforced in the environment, sorted.
	Rules []string
	// Judged is how many resource changes (creates and updates) the rules looked at.
	Judged int
	// Violations are sorted by rule, then address, then message.
	Violations []Violation
}

// Check evaluates the policies on the JSON of a plan for the environment env. The policies must
// define, in package hypercompute.policy, `deny` (the violations), `judged` (the resource changes
// the rules look at) and `enforced` (the rules of the environment); policies/lib.rego defines the
// last two.
func (p *Policies) Check(ctx context.Context, env string, planJSON []byte) (*Result, error) {
	if err := p.CheckEnvironment(env); err != nil {
		return nil, err
	}
	plan, err := decodePlan(planJSON)
	if err != nil {
		return nil, err
	}
	doc, err := p.evalPackage(ctx, plan, Data(env))
	if err != nil {
		return nil, err
	}
	res := &Result{Environment: env}
	if res.Violations, err = violations(doc["deny"]); err != nil {
		return nil, err
	}
	if res.Rules, err = names(doc["enforced"]); err != nil {
		return nil, fmt.Errorf("%s.enforced: %w", Package, err)
	}
	judged, ok := doc["judged"].([]any)
	if !ok {
		return nil, fmt.Errorf("%s.judged must be the set of resource changes the rules judge, not %T", Package, doc["judged"])
	}
	res.Judged = len(judged)
	return res, nil
}

// evalPackage evaluates the policies' package and returns its document, requiring the rules Check reads.
func (p *Policies) evalPackage(ctx context.Context, plan any, data map[string]any) (map[string]any, error) {
	v, err := p.eval(ctx, Package, plan, data)
	if err != nil {
		return nil, err
	}
	doc, _ := v.(map[string]any)
	for _, name := range []string{"deny", "judged", "enforced"} {
		if _, ok := doc[name]; !ok {
			return nil, fmt.Errorf("the policies do not define %s.%s", Package, name)
		}
	}
	return doc, nil
}

func violations(v any) ([]Violation, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s.deny must be a set of violations, not %T", Package, v)
	}
	out := make([]Violation, 0, len(list))
	for _, item := range list {
		obj, _ := item.(map[string]any)
		rule, ok1 := obj["rule"].(string)
		addr, ok2 := obj["address"].(string)
		msg, ok3 := obj["msg"].(string)
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("%s.deny holds %v; each violation must be {\"rule\": string, \"address\": string, \"msg\": string}", Package, item)
		}
		out = append(out, Violation{Rule: rule, Address: addr, Msg: msg})
	}
	slices.SortFunc(out, func(a, b Violation) int {
		return cmp.Or(cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Address, b.Address), cmp.Compare(a.Msg, b.Msg))
	})
	return out, nil
}

func names(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("a set of rule names is expected, not %T", v)
	}
	out := make([]string, 0, len(list))
	for _, item := range list {
		s, ok := item.(string)
		if !ok {
			return nil, fmt.Errorf("%v is not a rule name", item)
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out, nil
}
