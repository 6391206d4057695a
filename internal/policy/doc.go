// Package policy evaluates the Rego rules of policies/ on the JSON of a Terraform plan with Open
// Policy Agent's Go API: the plan is the input, the environment and the provider's own facts (GPU
// machine types, managed slurm.conf keys) are data, and each denial comes back as a Violation.
// cmd/hypercompute-policy is its command line; the pipelines' policy stage runs it.
package policy
