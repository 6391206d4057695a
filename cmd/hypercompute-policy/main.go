// Command hypercompute-policy checks the JSON of a Terraform plan against the production rules
// (policies/*.rego, compiled in) with Open Policy Agent. The pipelines' policy stage runs
//
//	hypercompute-policy check -env ENV -plan plan.json [-policies DIR]
//
// which prints one `DENY [<rule>] <address>: <message>` line per violation, sorted, then a summary,
// and exits 0 when there is none, 1 when there are violations and 2 on bad input (a plan that
// cannot be read or is not a plan's JSON, an unknown environment, policies that do not compile).
// `hypercompute-policy data -env ENV` prints the data document the rules read, for `opa eval`.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/policy"
)

// Exit codes of the policy stage.
const (
	exitPass       = 0
	exitViolations = 1
	exitBadInput   = 2
)

const usage = `usage:
  hypercompute-policy check -env ENV -plan PLAN.json [-policies DIR]
  hypercompute-policy data -env ENV

PLAN.json is the output of terraform show -json PLANFILE ("-" reads it from standard input).
Exit status: 0 no violation, 1 violations, 2 bad input.`

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "hypercompute-policy:", err)
		return exitBadInput
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return exitBadInput
	}
	fs := flag.NewFlagSet("hypercompute-policy "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, usage) }
	env := fs.String("env", "", "environment the plan is for: ml-dev, ml-staging or ml-prod")
	switch args[0] {
	case "check":
		planPath := fs.String("plan", "", "the plan's JSON (terraform show -json PLANFILE), - for standard input")
		dir := fs.String("policies", "", "directory of .rego files to use instead of the compiled-in policies")
		if err := parse(fs, args[1:]); err != nil {
			return fail(err)
		}
		if *planPath == "" {
			return fail(errors.New("-plan is required: the JSON of the plan (terraform show -json PLANFILE > plan.json)"))
		}
		return check(ctx, *env, *planPath, *dir, stdin, stdout, fail)
	case "data":
		if err := parse(fs, args[1:]); err != nil {
			return fail(err)
		}
		p, err := policy.Embedded()
		if err != nil {
			return fail(err)
		}
		if err := knownEnv(p, *env); err != nil {
			return fail(err)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(policy.Data(*env)); err != nil {
			return fail(err)
		}
		return exitPass
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return exitPass
	default:
		fmt.Fprintln(stderr, usage)
		return fail(fmt.Errorf("unknown command %q", args[0]))
	}
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	return nil
}

func check(ctx context.Context, env, planPath, dir string, stdin io.Reader, stdout io.Writer, fail func(error) int) int {
	var p *policy.Policies
	var err error
	if dir == "" {
		p, err = policy.Embedded()
	} else {
		p, err = policy.FromDir(dir)
	}
	if err != nil {
		return fail(err)
	}
	if err := knownEnv(p, env); err != nil {
		return fail(err)
	}
	var data []byte
	if planPath == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(planPath)
	}
	if err != nil {
		return fail(fmt.Errorf("reading the plan: %w", err))
	}
	res, err := p.Check(ctx, env, data)
	if err != nil {
		if planPath != "-" {
			err = fmt.Errorf("%s: %w", planPath, err)
		}
		return fail(err)
	}
	for _, v := range res.Violations {
		fmt.Fprintln(stdout, v)
	}
	checked := fmt.Sprintf("%s checked %s created or updated", count(len(res.Rules), "rule"), count(res.Judged, "resource"))
	if len(res.Violations) > 0 {
		fmt.Fprintf(stdout, "FAIL %s: %s; %s\n", env, count(len(res.Violations), "violation"), checked)
		return exitViolations
	}
	fmt.Fprintf(stdout, "PASS %s: no violations; %s\n", env, checked)
	return exitPass
}

func knownEnv(p *policy.Policies, env string) error {
	if env == "" {
		return fmt.Errorf("-env is required: one of %s", strings.Join(p.Environments(), ", "))
	}
	return p.CheckEnvironment(env)
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
