package tfutil

import (
	"context"
	"fmt"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// Report is what a VM's launcher and agent published under the hypercompute/ guest-attribute
// namespace (the contract is in package clusterconfig). The well-known keys are parsed; every key
// is in Attrs, for reports a resource of its own defines (a job's job-<name>).
type Report struct {
	Phase, Error, ConfigHash, ConfigError string
	// Attrs holds every key of the namespace; empty when the VM reported nothing yet.
	Attrs map[string]string
}

// ParseReport reads the entries of a getGuestAttributes answer; entries of other namespaces are
// left out.
func ParseReport(items []*computepb.GuestAttributesEntry) Report {
	r := Report{Attrs: map[string]string{}}
	for _, it := range items {
		if ns := it.GetNamespace(); ns != "" && ns != cc.GuestAttributeNamespace {
			continue
		}
		r.Attrs[it.GetKey()] = it.GetValue()
	}
	r.Phase, r.Error = r.Attrs[cc.GuestAttrPhase], r.Attrs[cc.GuestAttrError]
	r.ConfigHash, r.ConfigError = r.Attrs[cc.GuestAttrConfigHash], r.Attrs[cc.GuestAttrConfigError]
	return r
}

// Any reports whether the VM published anything yet.
func (r Report) Any() bool { return len(r.Attrs) > 0 }

// Failed reports whether the launcher or the agent gave up; Error then holds why.
func (r Report) Failed() bool { return r.Phase == cc.PhaseError || r.Phase == cc.PhaseLauncherFailed }

// Ready reports phase=ready with the config hash want ("" accepts any hash).
func (r Report) Ready(want string) bool {
	return r.Phase == cc.PhaseReady && (want == "" || r.ConfigHash == want)
}

// Rejected is slurmctld's error text when the controller rejected the configuration of hash and
// kept the one it had.
func (r Report) Rejected(hash string) (string, bool) {
	if hash == "" {
		return "", false
	}
	h, text, ok := cutFirst(r.ConfigError)
	return text, ok && h == hash
}

// Registered is the static nodes of a partition the controller sees registered in Slurm.
func (r Report) Registered(partition string) []string {
	nodes, _ := cc.ExpandHostlist(r.Attrs[cc.RegisteredAttr(partition)])
	return nodes
}

// Drained is the controller's drain report of a partition: the drain's id and the nodes drained
// and idle. ok is false when there is none or it does not parse.
func (r Report) Drained(partition string) (id string, nodes []string, ok bool) {
	id, nodes, err := cc.ParseDrained(r.Attrs[cc.DrainedAttr(partition)])
	return id, nodes, err == nil
}

func (r Report) String() string {
	if !r.Any() {
		return "nothing reported yet (the launcher has not started the agent)"
	}
	s := "phase " + orDash(r.Phase)
	if r.ConfigHash != "" {
		s += ", config-hash " + ShortHash(r.ConfigHash)
	}
	return s
}

// ShortHash is the prefix of a config hash that messages show.
func ShortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func cutFirst(s string) (first, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// VM names one VM of a cluster.
type VM struct {
	Project, Zone, Name string
}

// ReadReport reads a VM's report. Compute answers 404 until the guest wrote an attribute, and
// for a VM that is gone; both are an empty report.
func ReadReport(ctx context.Context, cl *gcp.Clients, vm VM) (Report, error) {
	ga, err := cl.Instances.GetGuestAttributes(ctx, &computepb.GetGuestAttributesInstanceRequest{
		Project: vm.Project, Zone: vm.Zone, Instance: vm.Name, QueryPath: proto.String(cc.GuestAttributeNamespace + "/"),
	})
	if err = gcp.Classify(err); err != nil {
		if gcp.IsNotFound(err) {
			return ParseReport(nil), nil
		}
		return Report{}, fmt.Errorf("reading the guest attributes of VM %s: %w", vm.Name, err)
	}
	return ParseReport(ga.GetQueryValue().GetItems()), nil
}
