package compute

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"regexp"
	"strconv"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

func init() { addRoutes(firewallRoutes) }

func firewallRoutes(s *Service) {
	p := prefix + "/global/firewalls"
	s.handle("POST "+p, "compute.firewalls.insert", core.Mutating, s.insertFirewall)
	s.handle("GET "+p, "compute.firewalls.list", core.Read, func(w http.ResponseWriter, r *http.Request) {
		s.list(w, r, "compute#firewallList", KindFirewalls, firewallKey(r.PathValue("project"), ""))
	})
	s.handle("GET "+p+"/{firewall}", "compute.firewalls.get", core.Read, func(w http.ResponseWriter, r *http.Request) {
		s.getNamed(w, r, KindFirewalls, firewallKey(r.PathValue("project"), r.PathValue("firewall")))
	})
	s.handle("DELETE "+p+"/{firewall}", "compute.firewalls.delete", core.Mutating, s.deleteFirewall)
	s.handle("PATCH "+p+"/{firewall}", "compute.firewalls.patch", core.Mutating, func(w http.ResponseWriter, r *http.Request) { s.changeFirewall(w, r, true) })
	s.handle("PUT "+p+"/{firewall}", "compute.firewalls.update", core.Mutating, func(w http.ResponseWriter, r *http.Request) { s.changeFirewall(w, r, false) })
}

func firewallKey(project, name string) string {
	return "projects/" + project + "/global/firewalls/" + name
}

var (
	protocolNames = map[string]bool{"tcp": true, "udp": true, "icmp": true, "esp": true, "ah": true, "sctp": true, "ipip": true, "all": true}
	portRE        = regexp.MustCompile(`^([0-9]{1,5})(?:-([0-9]{1,5}))?$`)
	tagRE         = regexp.MustCompile(`^` + core.NameRegex + `$`)
)

// validateFirewall applies defaults and checks a firewall rule as Compute does.
func validateFirewall(fw *computepb.Firewall) *core.APIError {
	if len(fw.Allowed) > 0 && len(fw.Denied) > 0 {
		return core.Invalid("Invalid value for field 'resource': a firewall rule can have either allowed or denied rules, not both.")
	}
	if len(fw.Allowed) == 0 && len(fw.Denied) == 0 {
		return core.Required("resource.allowed")
	}
	if fw.Direction == nil {
		fw.Direction = proto.String("INGRESS")
	}
	switch fw.GetDirection() {
	case "INGRESS", "EGRESS":
	default:
		return core.InvalidField("resource.direction", fw.GetDirection(), "Must be INGRESS or EGRESS.")
	}
	if fw.Priority == nil {
		fw.Priority = proto.Int32(1000)
	}
	if p := fw.GetPriority(); p < 0 || p > 65535 {
		return core.InvalidField("resource.priority", strconv.Itoa(int(p)), "Must be between 0 and 65535.")
	}
	check := func(field string, protocol string, ports []string) *core.APIError {
		if protocol == "" {
			return core.Required(field + ".IPProtocol")
		}
		if n, err := strconv.Atoi(protocol); err == nil {
			if n < 0 || n > 255 {
				return core.InvalidField(field+".IPProtocol", protocol, "Must be a protocol name or a number between 0 and 255.")
			}
		} else if !protocolNames[strings.ToLower(protocol)] {
			return core.InvalidField(field+".IPProtocol", protocol, "Must be a protocol name or a number between 0 and 255.")
		}
		for j, p := range ports {
			pl := strings.ToLower(protocol)
			if pl != "tcp" && pl != "udp" && pl != "sctp" && pl != "6" && pl != "17" && pl != "132" {
				return core.InvalidField(fmt.Sprintf("%s.ports[%d]", field, j), p, "Ports can only be given for TCP, UDP and SCTP.")
			}
			m := portRE.FindStringSubmatch(p)
			if m == nil {
				return core.InvalidField(fmt.Sprintf("%s.ports[%d]", field, j), p, "Must be a port number or a range like 8000-9000.")
			}
			lo, _ := strconv.Atoi(m[1])
			hi := lo
			if m[2] != "" {
				hi, _ = strconv.Atoi(m[2])
			}
			if lo < 0 || hi > 65535 || lo > hi {
				return core.InvalidField(fmt.Sprintf("%s.ports[%d]", field, j), p, "Ports must be between 0 and 65535.")
			}
		}
		return nil
	}
	for i, a := range fw.Allowed {
		if e := check(fmt.Sprintf("resource.allowed[%d]", i), a.GetIPProtocol(), a.Ports); e != nil {
			return e
		}
	}
	for i, d := range fw.Denied {
		if e := check(fmt.Sprintf("resource.denied[%d]", i), d.GetIPProtocol(), d.Ports); e != nil {
			return e
		}
	}
	for field, ranges := range map[string][]string{"resource.sourceRanges": fw.SourceRanges, "resource.destinationRanges": fw.DestinationRanges} {
		for i, rg := range ranges {
			if _, err := netip.ParsePrefix(rg); err != nil {
				if _, err := netip.ParseAddr(rg); err != nil {
					return core.InvalidField(fmt.Sprintf("%s[%d]", field, i), rg, "Must be a valid IPv4 or IPv6 CIDR range.")
				}
			}
		}
	}
	for field, tags := range map[string][]string{"resource.sourceTags": fw.SourceTags, "resource.targetTags": fw.TargetTags} {
		for i, t := range tags {
			if !tagRE.MatchString(t) {
				return core.InvalidField(fmt.Sprintf("%s[%d]", field, i), t, "Must be a match of regex '"+core.NameRegex+"'")
			}
		}
	}
	if fw.GetDirection() == "EGRESS" && (len(fw.SourceTags) > 0 || len(fw.SourceServiceAccounts) > 0) {
		return core.Invalid("Invalid value for field 'resource.sourceTags': source tags and service accounts cannot be set on an EGRESS rule.")
	}
	if len(fw.SourceServiceAccounts) > 0 && len(fw.SourceTags) > 0 || len(fw.TargetServiceAccounts) > 0 && len(fw.TargetTags) > 0 {
		return core.Invalid("Invalid value for field 'resource': service accounts and tags cannot be combined in one rule.")
	}
	// Google fills 0.0.0.0/0 in for the side of the rule left open.
	if fw.GetDirection() == "INGRESS" && len(fw.SourceRanges) == 0 && len(fw.SourceTags) == 0 && len(fw.SourceServiceAccounts) == 0 {
		fw.SourceRanges = []string{"0.0.0.0/0"}
	}
	if fw.GetDirection() == "EGRESS" && len(fw.DestinationRanges) == 0 {
		fw.DestinationRanges = []string{"0.0.0.0/0"}
	}
	if fw.Disabled == nil {
		fw.Disabled = proto.Bool(false)
	}
	if fw.LogConfig == nil {
		fw.LogConfig = &computepb.FirewallLogConfig{Enable: proto.Bool(false)}
	}
	return nil
}

func (s *Service) insertFirewall(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	var fw computepb.Firewall
	if !decode(w, r, &fw) {
		return
	}
	if e := core.ValidateName("resource.name", fw.GetName()); e != nil {
		fail(w, r, e)
		return
	}
	key := firewallKey(project, fw.GetName())
	if s.Store.Exists(KindFirewalls, key) {
		fail(w, r, core.AlreadyExists(key))
		return
	}
	netKey, network, e := s.lookupNetwork(project, fw.GetNetwork())
	if e != nil {
		fail(w, r, e)
		return
	}
	if e := validateFirewall(&fw); e != nil {
		fail(w, r, e)
		return
	}
	fw.Network = network.SelfLink
	id, created, self := s.newMeta(KindFirewalls, key)
	fw.Kind = proto.String("compute#firewall")
	// Compute answers these even when they were not sent.
	if fw.Disabled == nil {
		fw.Disabled = proto.Bool(false)
	}
	if fw.LogConfig == nil {
		fw.LogConfig = &computepb.FirewallLogConfig{Enable: proto.Bool(false)}
	}
	fw.Id = proto.Uint64(id)
	fw.CreationTimestamp = proto.String(created)
	fw.SelfLink = proto.String(self)
	answerOp(w, s.opFor(r, key, "insert", id, func(tx *core.Tx, _ *computepb.Operation) error {
		if tx.Exists(KindFirewalls, key) {
			return core.OpAlreadyExists(key)
		}
		if !tx.Exists(KindNetworks, netKey) {
			return core.OpNotFound(netKey)
		}
		return tx.Put(KindFirewalls, key, &fw)
	}))
}

func (s *Service) deleteFirewall(w http.ResponseWriter, r *http.Request) {
	key := firewallKey(r.PathValue("project"), r.PathValue("firewall"))
	var fw computepb.Firewall
	if ok, _ := s.Store.Get(KindFirewalls, key, &fw); !ok {
		fail(w, r, core.NotFound(key))
		return
	}
	answerOp(w, s.opFor(r, key, "delete", fw.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		if !tx.Delete(KindFirewalls, key) {
			return core.OpNotFound(key)
		}
		return nil
	}))
}

// changeFirewall serves patch (merge; lists replace) and update (the body replaces the rule). The name and
// network cannot change.
func (s *Service) changeFirewall(w http.ResponseWriter, r *http.Request, patch bool) {
	project := r.PathValue("project")
	key := firewallKey(project, r.PathValue("firewall"))
	old, ok := s.Store.GetRaw(KindFirewalls, key)
	if !ok {
		fail(w, r, core.NotFound(key))
		return
	}
	var body json.RawMessage
	if e := core.ReadJSON(r, &body); e != nil {
		fail(w, r, e)
		return
	}
	var probe computepb.Firewall
	if e := core.ReadJSONBytes(body, &probe); e != nil {
		fail(w, r, e)
		return
	}
	var before computepb.Firewall
	_ = core.Decode(old, &before)
	after := &computepb.Firewall{}
	if patch {
		merged, err := core.MergePatch(old, body)
		if err != nil {
			fail(w, r, core.Invalid("Invalid JSON payload received. "+err.Error()))
			return
		}
		_ = core.Decode(merged, after)
		// A patch that switches between allowed and denied sends only the new list.
		if len(probe.Allowed) > 0 && len(probe.Denied) == 0 {
			after.Denied = nil
		}
		if len(probe.Denied) > 0 && len(probe.Allowed) == 0 {
			after.Allowed = nil
		}
	} else {
		after = proto.Clone(&probe).(*computepb.Firewall)
		if after.Name == nil {
			after.Name = before.Name
		}
		if after.Network == nil {
			after.Network = before.Network
		}
	}
	if after.GetName() != before.GetName() {
		fail(w, r, core.InvalidField("resource.name", after.GetName(), "The name of a firewall rule cannot be changed."))
		return
	}
	if core.RelativePath(resolveRef(project, "global", "networks", after.GetNetwork())) != core.RelativePath(before.GetNetwork()) {
		fail(w, r, core.InvalidField("resource.network", after.GetNetwork(), "The network of a firewall rule cannot be changed."))
		return
	}
	if e := validateFirewall(after); e != nil {
		fail(w, r, e)
		return
	}
	after.Kind, after.Id, after.CreationTimestamp, after.SelfLink, after.Network = before.Kind, before.Id, before.CreationTimestamp, before.SelfLink, before.Network
	opType := "update"
	if patch {
		opType = "patch"
	}
	answerOp(w, s.opFor(r, key, opType, before.GetId(), func(tx *core.Tx, _ *computepb.Operation) error {
		if !tx.Exists(KindFirewalls, key) {
			return core.OpNotFound(key)
		}
		return tx.Put(KindFirewalls, key, after)
	}))
}
