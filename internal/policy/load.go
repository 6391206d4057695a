package policy

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/hypercompute/terraform-provider-hypercompute/policies"
)

// Package is the Rego package every rule is in; its `deny` set holds the violations.
const Package = "data.hypercompute.policy"

// Policies are the compiled Rego modules of one policy set.
type Policies struct {
	modules      map[string]string // file name → source
	environments []string
}

// Embedded returns the policies compiled into the binary (policies/*.rego).
func Embedded() (*Policies, error) { return load(policies.FS, "the embedded policies") }

// FromDir reads the *.rego files of dir (not of its subdirectories), as `-policies DIR` asks.
func FromDir(dir string) (*Policies, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("policies directory: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("policies directory %s is not a directory", dir)
	}
	return load(os.DirFS(dir), dir)
}

func load(fsys fs.FS, where string) (*Policies, error) {
	names, err := fs.Glob(fsys, "*.rego")
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s hold no .rego file", where)
	}
	p := &Policies{modules: map[string]string{}}
	for _, name := range names {
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		p.modules[path.Join(where, name)] = string(src)
	}
	// Compile once here, so a broken policy is reported before any plan is read.
	if _, err := ast.CompileModulesWithOpt(p.modules, ast.CompileOpts{ParserOptions: ast.ParserOptions{RegoVersion: ast.RegoV1}}); err != nil {
		return nil, fmt.Errorf("policy compile error: %w", err)
	}
	envs, err := p.eval(context.Background(), Package+".environments", nil, nil)
	if err != nil {
		return nil, err
	}
	list, ok := envs.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: %s.environments must be a set of environment names, not %T", where, Package, envs)
	}
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s: %s.environments holds %v, not a name", where, Package, e)
		}
		p.environments = append(p.environments, s)
	}
	sort.Strings(p.environments)
	return p, nil
}

// Environments are the environment names the policies know, sorted.
func (p *Policies) Environments() []string { return slices.Clone(p.environments) }

// CheckEnvironment fails unless the policies know env.
func (p *Policies) CheckEnvironment(env string) error {
	if !slices.Contains(p.environments, env) {
		return fmt.Errorf("unknown environment %q: the policies know %s", env, strings.Join(p.environments, ", "))
	}
	return nil
}

// eval evaluates a query of one expression over input and data (either may be nil) and returns
// its value; an undefined result is an error naming the query.
func (p *Policies) eval(ctx context.Context, q string, input any, data map[string]any) (any, error) {
	rs, err := p.rego(q, input, data).Eval(ctx)
	if err != nil {
		return nil, fmt.Errorf("evaluating %s: %w", q, err)
	}
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return nil, fmt.Errorf("the policies do not define %s", q)
	}
	return rs[0].Expressions[0].Value, nil
}

func (p *Policies) rego(q string, input any, data map[string]any) *rego.Rego {
	opts := []func(*rego.Rego){rego.Query(q), rego.SetRegoVersion(ast.RegoV1), rego.StrictBuiltinErrors(true)}
	for _, name := range slices.Sorted(maps.Keys(p.modules)) {
		opts = append(opts, rego.Module(name, p.modules[name]))
	}
	if data != nil {
		opts = append(opts, rego.Store(newStore(data)))
	}
	if input != nil {
		opts = append(opts, rego.Input(input))
	}
	return rego.New(opts...)
}
