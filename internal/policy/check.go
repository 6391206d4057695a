package policy

import (
	"cmp"
	"context"
	"encoding/json"
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

// the query's variables: what Check reads back.
const checkQuery = "deny := " + Package + ".deny; judged := count(" + Package + ".judged); enforced := " + Package + ".enforced"

// Check evaluates the policies on the JSON of a plan for the environment env.
func (p *Policies) Check(ctx context.Context, env string, planJSON []byte) (*Result, error) {
	if err := p.CheckEnvironment(env); err != nil {
		return nil, err
	}
	plan, err := decodePlan(planJSON)
	if err != nil {
		return nil, err
	}
	bindings, err := p.eval(ctx, checkQuery, plan, Data(env))
	if err != nil {
		return nil, err
	}
	res := &Result{Environment: env}
	if res.Violations, err = violations(bindings["deny"]); err != nil {
		return nil, err
	}
	if res.Rules, err = names(bindings["enforced"]); err != nil {
		return nil, fmt.Errorf("%s.enforced: %w", Package, err)
	}
	n, err := toInt(bindings["judged"])
	if err != nil {
		return nil, fmt.Errorf("%s.judged: %w", Package, err)
	}
	res.Judged = n
	return res, nil
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

func toInt(v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("a number is expected, not %T", v)
	}
	i, err := n.Int64()
	return int(i), err
}
