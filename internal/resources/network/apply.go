package network

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	compute "cloud.google.com/go/compute/apiv1"
	"google.golang.org/api/iterator"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

var iteratorDone = iterator.Done

// applier reconciles the cloud towards one desired network.
type applier struct {
	c *gcp.Clients
	d *desired

	projectNumberOnce sync.Once
	projectNumber     uint64
	projectNumberErr  error
}

// wait finishes a mutating call: the call's own error, or the operation's outcome, classified.
func (a *applier) wait(ctx context.Context, op *compute.Operation, err error) error {
	return tfutil.ComputeDone(ctx, a.c, op, err)
}

// apply converges everything the network owns. The VPC and its subnet come first (everything
// else references them); then the independent parts run concurrently, so a create costs a few
// operation latencies instead of one per part. insert is set when a create's claim found no VPC:
// then this apply must be the one that inserts it.
func (a *applier) apply(ctx context.Context, insert bool) error {
	desc := vpcDescription(a.d.description)
	if insert {
		if _, err := a.insertVPC(ctx, a.d.name, desc, a.d.mtu, ""); err != nil {
			if gcp.IsAlreadyExists(err) {
				// Absent at the claim, and now another apply's insert won (ownership.go).
				return &notOursError{project: a.d.project, name: a.d.name, why: "was created by another apply at the same time"}
			}
			return err
		}
	} else if _, err := a.ensureVPC(ctx, a.d.name, desc, a.d.mtu, ""); err != nil {
		return err
	}
	// The subnet precedes the private service access range: a range Google picks avoids the
	// subnets that exist, while a subnet created later that collides with the range is refused.
	if _, err := a.ensureSubnet(ctx, a.d.region, a.d.n.subnet(), networkURL(a.d.project, a.d.name), a.d.subnetCIDR, a.d.privateGoogleAccess); err != nil {
		return err
	}
	var g tfutil.Group
	run := g.Go
	run(func() error {
		if a.d.nat {
			return a.ensureRouter(ctx)
		}
		return a.pruneRouter(ctx)
	})
	run(func() error {
		if a.d.psa {
			_, _, err := a.ensurePSA(ctx)
			return err
		}
		return a.deletePSA(ctx)
	})
	run(func() error {
		if a.d.gpu != nil {
			if _, err := a.ensureGPUNetworks(ctx); err != nil {
				return err
			}
		}
		return a.pruneGPUNetworks(ctx)
	})
	if err := g.Wait(); err != nil {
		return err
	}
	// Firewall rules reference the GPU VPCs, so they come after them. Only rules that exist are
	// deleted: a create would otherwise send a DELETE for every rule the network may own.
	want := a.desiredFirewalls()
	have, err := a.listFirewalls(ctx)
	if err != nil {
		return fmt.Errorf("listing the firewall rules of %s: %w", a.d.name, err)
	}
	var internal firewallRule
	for _, fw := range want {
		if fw.name == a.d.n.fwInternal() {
			internal = fw
			continue
		}
		run(func() error { return a.ensureFirewall(ctx, fw) })
	}
	for _, name := range a.unwantedFirewalls(want) {
		if have[name] {
			run(func() error { return a.deleteFirewall(ctx, name) })
		}
	}
	if err := g.Wait(); err != nil {
		return err
	}
	// The internal rule comes last, alone: its existence says a create got to its end, which is
	// how a later create tells a finished network from one it may finish (ownership.go).
	return a.ensureFirewall(ctx, internal)
}

func (a *applier) unwantedFirewalls(want []firewallRule) []string {
	candidates := []string{a.d.n.fwIAPSSH()}
	for i := range maxGPUSubnetsTotal {
		candidates = append(candidates, a.d.n.gpuFW(i))
	}
	var out []string
	for _, c := range candidates {
		if !slices.ContainsFunc(want, func(f firewallRule) bool { return f.name == c }) {
			out = append(out, c)
		}
	}
	return out
}

// destroy deletes everything in dependency order. Each step ignores what is already gone, so a
// destroy interrupted half-way finishes on the next run.
func (a *applier) destroy(ctx context.Context) error {
	a.d.gpu = nil
	a.d.iapSSH = false
	var errs []error
	// The peering and the range go first: the API refuses while producers (Filestore, Lustre)
	// still use them, and then nothing else should be torn down either.
	if err := a.deletePSA(ctx); err != nil {
		return err
	}
	have, err := a.listFirewalls(ctx)
	if err != nil {
		return fmt.Errorf("listing the firewall rules of %s: %w", a.d.name, err)
	}
	for _, fw := range append(a.unwantedFirewalls(nil), a.d.n.fwInternal()) {
		if !have[fw] {
			continue
		}
		if err := a.deleteFirewall(ctx, fw); err != nil {
			errs = append(errs, err)
		}
	}
	if err := a.deleteRouter(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := a.pruneGPUNetworks(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := a.deleteSubnet(ctx, a.d.region, a.d.n.subnet()); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if err := a.deleteVPC(ctx, a.d.name); err != nil {
		return fmt.Errorf("%w (the network still holds resources this provider does not manage, such as VMs or other subnets)", err)
	}
	return nil
}
