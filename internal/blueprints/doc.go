// Package blueprints holds the tests that apply examples/blueprints/* as a user does: the real
// blueprint directory with the repository's modules/, driven through the terraform CLI (init,
// apply, plan -detailed-exitcode, destroy) against an in-process local cloud, with the provider
// under test served in-process and a fake controller agent reporting for the cluster's VMs. The
// package has no code of its own; everything is in its _test.go files.
package blueprints
