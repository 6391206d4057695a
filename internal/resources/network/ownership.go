package network

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Which network a create may take over.
//
// A create finds every part by its derived name, so an apply that stopped half-way — the provider
// or Terraform killed before Create returned, leaving nothing in the state — is finished by the
// next apply. The same lookup must not take over a network that another Terraform state (or
// another tool) made: that state's next plan would show its parts rewritten, and this state's
// destroy would delete them.
//
// A marker per resource instance cannot tell the two apart: after a crash Terraform has no state,
// so a plan-time ID would be drawn anew on the retry, and the provider learns nothing else that
// stays the same from one run to the next (the resource address and the state never reach it).
// What does survive a crash is the cloud itself, so the network says how far its own create got:
//
//   - the VPC's description ends with createdMarker, set at insert. A VPC description can be set
//     only at creation (networks.patch changes routingConfig and MTU only), so it cannot be
//     forged onto someone else's network later, and a VPC without it was made by another tool
//     (or by this provider before the marker existed).
//   - the <name>-allow-internal firewall rule is the very last thing a create makes, after every
//     other part, so it exists exactly when a create got to its end.
//
// A create therefore adopts a VPC that carries the marker and has no internal rule yet — an
// unfinished create of hypercompute_network — and refuses any other existing VPC before making a
// single change; `terraform import` takes over a finished one. What remains is the window of the
// last insert and the read-back: a crash there leaves a finished network, and the retry is refused
// and names the import. Two states creating one name at the very same time are told apart by the
// VPC insert itself, which only one of them wins.
const createdMarker = "(created by hypercompute_network)"

// maxDescriptionLength leaves room for the marker within the API's 2048 characters.
const maxDescriptionLength = 2048 - len(" "+createdMarker)

// vpcDescription is the description a create gives the VPC: the user's, then the marker.
func vpcDescription(user string) string {
	if user == "" {
		return createdMarker
	}
	return user + " " + createdMarker
}

// userDescription is the VPC description without the marker, as the user wrote it.
func userDescription(api string) string {
	return strings.TrimSuffix(strings.TrimSuffix(api, createdMarker), " ")
}

// notOursError refuses a create whose network exists and is not an unfinished create of this
// resource. Create records no state for it: the network is someone else's to keep.
type notOursError struct{ project, name, why string }

func (e *notOursError) Error() string {
	return fmt.Sprintf("network %s already exists in project %s and %s. A create only finishes its own "+
		"half-made network and never adopts, changes or deletes what it did not make: it may be another "+
		"Terraform state's, or an interrupted apply of this one that stopped after its create finished. "+
		"If it is yours: terraform import hypercompute_network.<name> projects/%s/global/networks/%s "+
		"(or an import block); otherwise choose another name.",
		e.name, e.project, e.why, e.project, e.name)
}

func isNotOurs(err error) bool {
	var n *notOursError
	return errors.As(err, &n)
}

// claim runs before a create changes anything: it reports whether the VPC exists (an unfinished
// create of this resource, to finish) or not (to insert), and is a *notOursError when the VPC is
// someone else's.
func (a *applier) claim(ctx context.Context) (exists bool, err error) {
	net, err := a.findNetwork(ctx, a.d.name)
	if err != nil {
		if tfutil.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("reading network %s: %w", a.d.name, err)
	}
	refuse := func(why string) error { return &notOursError{project: a.d.project, name: a.d.name, why: why} }
	if !strings.HasSuffix(net.GetDescription(), createdMarker) {
		return true, refuse("was not created by hypercompute_network (its description lacks " + createdMarker + ")")
	}
	rules, err := a.listFirewalls(ctx)
	if err != nil {
		return true, fmt.Errorf("listing the firewall rules of %s: %w", a.d.name, err)
	}
	if rules[a.d.n.fwInternal()] {
		return true, refuse("its create finished (its " + a.d.n.fwInternal() + " firewall rule, which a create makes last, exists), " +
			"so another Terraform state owns it")
	}
	return true, nil
}
