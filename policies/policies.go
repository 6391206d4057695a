// Package policies holds the production rules as Rego, evaluated by Open Policy Agent on the JSON
// of a Terraform plan (internal/policy, cmd/hypercompute-policy). README.md lists the rules and the
// environments each is enforced in.
package policies

import "embed"

// FS holds the rules, compiled into the binaries that check plans.
//
//go:embed *.rego
var FS embed.FS
