package servicenetworking

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	sn "google.golang.org/api/servicenetworking/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// connectionRecord is a stored connection. The network is kept by project ID so the record's key and the
// Compute records it depends on agree; the wire form names the project by number.
type connectionRecord struct {
	Project string   `json:"project"`
	Network string   `json:"network"`
	Service string   `json:"service"`
	Ranges  []string `json:"reservedPeeringRanges"`
}

func connectionKey(n NetworkRef, service string) string { return n.Key() + "/services/" + service }

func (c connectionRecord) ref() NetworkRef { return NetworkRef{Project: c.Project, Name: c.Network} }

// wire is the Connection the API answers.
func (c connectionRecord) wire() *sn.Connection {
	return &sn.Connection{
		Network:               c.ref().ConsumerNetwork(),
		ReservedPeeringRanges: slices.Clone(c.Ranges),
		Peering:               PeeringName(c.Service),
		// Google names the service by its resource name in answers, not the bare name requests use.
		Service: "services/" + c.Service,
	}
}

// PeeringName is the name of the VPC peering a service's connection makes ("servicenetworking-googleapis-com").
func PeeringName(service string) string { return strings.ReplaceAll(service, ".", "-") }

// Messages of the real API, kept verbatim: clients and users match on them.
const (
	msgCreateOnExisting = "Cannot modify allocated ranges in CreateConnection. Please use UpdateConnection."
	msgProducersInUse   = "Producer services (e.g. CloudSQL, Cloud Memstore, etc.) are still using this connection."
)

// badRequest is the synchronous 400 for a malformed request.
func badRequest(format string, args ...any) *core.APIError {
	return core.GoogleError(http.StatusBadRequest, format, args...)
}

// failedPrecondition is a google.rpc FAILED_PRECONDITION (code 9) operation error.
func failedPrecondition(format string, args ...any) *core.OpError {
	return core.NewOpError(http.StatusPreconditionFailed, "FAILED_PRECONDITION", fmt.Sprintf(format, args...))
}

func opNotFound(format string, args ...any) *core.OpError {
	return core.NewOpError(http.StatusNotFound, "NOT_FOUND", fmt.Sprintf(format, args...))
}

func (s *Service) createConnection(w http.ResponseWriter, r *http.Request) {
	service := r.PathValue("service")
	var body sn.Connection
	if err := core.ReadJSON(r, &body); err != nil {
		core.WriteError(w, r, err)
		return
	}
	net, err := s.requestNetwork(body.Network, "network")
	if err != nil {
		core.WriteError(w, r, err)
		return
	}
	if len(body.ReservedPeeringRanges) == 0 {
		core.WriteError(w, r, badRequest("reservedPeeringRanges: at least one allocated IP range is required."))
		return
	}
	ranges := dedupe(body.ReservedPeeringRanges)
	l := s.Ops.StartLRO(r, core.LROSpec{Apply: func(tx *core.Tx) (any, error) {
		if !net.Exists(tx) {
			return nil, opNotFound("Network '%s' not found.", net.ConsumerNetwork())
		}
		key := connectionKey(net, service)
		var cur connectionRecord
		if ok, _ := tx.Get(KindConnections, key, &cur); ok {
			if !sameSet(cur.Ranges, ranges) {
				return nil, failedPrecondition(msgCreateOnExisting)
			}
			return core.Typed(connectionTypeURL, cur.wire()), nil
		}
		return s.putConnection(tx, net, service, ranges)
	}})
	writeOperation(w, l)
}

// putConnection makes a new connection of the network to service over ranges, with its VPC peering.
func (s *Service) putConnection(tx *core.Tx, net NetworkRef, service string, ranges []string) (any, error) {
	if !net.Exists(tx) {
		return nil, opNotFound("Network '%s' not found.", net.ConsumerNetwork())
	}
	if err := checkRanges(tx, net, ranges); err != nil {
		return nil, err
	}
	rec := connectionRecord{Project: net.Project, Network: net.Name, Service: service, Ranges: ranges}
	if err := tx.Put(KindConnections, connectionKey(net, service), rec); err != nil {
		return nil, err
	}
	if err := setPeering(tx, net, service, true, s.Now()); err != nil {
		return nil, err
	}
	return core.Typed(connectionTypeURL, rec.wire()), nil
}

func (s *Service) listConnections(w http.ResponseWriter, r *http.Request) {
	service := r.PathValue("service")
	network := r.URL.Query().Get("network")
	if network == "" {
		core.WriteError(w, r, badRequest("network: the consumer network is required (projects/{project}/global/networks/{network})."))
		return
	}
	net, err := s.requestNetwork(network, "network")
	if err != nil {
		core.WriteError(w, r, err)
		return
	}
	var out []*sn.Connection
	for _, rec := range s.Store.List(KindConnections, net.Key()+"/services/") {
		var c connectionRecord
		if rec.Decode(&c) != nil || (service != "-" && c.Service != service) {
			continue
		}
		out = append(out, c.wire())
	}
	// An empty list answers {} (the field is omitted), as the real API does.
	core.WriteJSON(w, http.StatusOK, &sn.ListConnectionsResponse{Connections: out})
}

func (s *Service) patchConnection(w http.ResponseWriter, r *http.Request) {
	service, name := r.PathValue("service"), r.PathValue("name")
	q := r.URL.Query()
	var body sn.Connection
	if err := core.ReadJSON(r, &body); err != nil {
		core.WriteError(w, r, err)
		return
	}
	if name != "-" && name != PeeringName(service) {
		core.WriteError(w, r, core.GoogleError(http.StatusNotFound, "Connection '%s' not found for service '%s'.", name, service))
		return
	}
	mask := q.Get("updateMask")
	for _, f := range strings.Split(mask, ",") {
		if f = strings.TrimSpace(f); f != "" && f != "reservedPeeringRanges" && f != "reserved_peering_ranges" {
			core.WriteError(w, r, badRequest("updateMask: field '%s' cannot be updated; only reservedPeeringRanges can.", f))
			return
		}
	}
	force := false
	if v := q.Get("force"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			core.WriteError(w, r, badRequest("force: invalid boolean value '%s'.", v))
			return
		}
		force = b
	}
	net, err := s.requestNetwork(body.Network, "connection.network")
	if err != nil {
		core.WriteError(w, r, err)
		return
	}
	if len(body.ReservedPeeringRanges) == 0 {
		core.WriteError(w, r, badRequest("connection.reservedPeeringRanges: at least one allocated IP range is required; use deleteConnection to remove the connection."))
		return
	}
	ranges := dedupe(body.ReservedPeeringRanges)
	l := s.Ops.StartLRO(r, core.LROSpec{Apply: func(tx *core.Tx) (any, error) {
		key := connectionKey(net, service)
		var cur connectionRecord
		if ok, _ := tx.Get(KindConnections, key, &cur); !ok {
			// With force, Google creates the connection (Terraform's google provider relies on it).
			if !force {
				return nil, opNotFound("No connection to service '%s' found for network '%s'.", service, net.ConsumerNetwork())
			}
			return s.putConnection(tx, net, service, ranges)
		}
		var removed []string
		for _, old := range cur.Ranges {
			if !slices.Contains(ranges, old) {
				removed = append(removed, old)
			}
		}
		if len(removed) > 0 {
			if !force {
				return nil, failedPrecondition("Removing allocated ranges %s from the connection requires force=true.", strings.Join(removed, ", "))
			}
			if users := rangeUsers(tx, net, removed); len(users) > 0 {
				return nil, failedPrecondition("%s Ranges still in use: %s (by %s).", msgProducersInUse, strings.Join(removed, ", "), strings.Join(users, ", "))
			}
		}
		var added []string
		for _, nr := range ranges {
			if !slices.Contains(cur.Ranges, nr) {
				added = append(added, nr)
			}
		}
		if err := checkRanges(tx, net, added); err != nil {
			return nil, err
		}
		cur.Ranges = ranges
		if err := tx.Put(KindConnections, key, cur); err != nil {
			return nil, err
		}
		return core.Typed(connectionTypeURL, cur.wire()), nil
	}})
	writeOperation(w, l)
}

func (s *Service) deleteConnection(w http.ResponseWriter, r *http.Request) {
	service := r.PathValue("service")
	name := strings.TrimSuffix(r.PathValue("name"), ":deleteConnection")
	var body sn.DeleteConnectionRequest
	if err := core.ReadJSON(r, &body); err != nil {
		core.WriteError(w, r, err)
		return
	}
	if name != PeeringName(service) && name != "-" {
		core.WriteError(w, r, core.GoogleError(http.StatusNotFound, "Connection '%s' not found for service '%s'.", name, service))
		return
	}
	if body.ConsumerNetwork == "" {
		core.WriteError(w, r, badRequest("consumerNetwork: the consumer network is required (projects/{project}/global/networks/{network})."))
		return
	}
	net, err := s.requestNetwork(body.ConsumerNetwork, "consumerNetwork")
	if err != nil {
		core.WriteError(w, r, err)
		return
	}
	l := s.Ops.StartLRO(r, core.LROSpec{Apply: func(tx *core.Tx) (any, error) {
		key := connectionKey(net, service)
		var cur connectionRecord
		if ok, _ := tx.Get(KindConnections, key, &cur); !ok {
			return nil, opNotFound("No connection to service '%s' found for network '%s'.", service, net.ConsumerNetwork())
		}
		if users := rangeUsers(tx, net, cur.Ranges); len(users) > 0 {
			return nil, failedPrecondition("Failed to delete connection; %s Still in use by: %s.", msgProducersInUse, strings.Join(users, ", "))
		}
		tx.Delete(KindConnections, key)
		// The peered DNS domains ride on the connection's peering and go with it.
		for _, rec := range tx.List(KindPeeredDNSDomains, peeredDNSPrefix(net, service)) {
			tx.Delete(KindPeeredDNSDomains, rec.Key)
		}
		if err := setPeering(tx, net, service, false, s.Now()); err != nil {
			return nil, err
		}
		return core.Typed(emptyTypeURL, struct{}{}), nil
	}})
	writeOperation(w, l)
}

// requestNetwork parses a network named in a request, answering a 400 naming field when it is malformed.
// The project-ID form is accepted as well as the documented project-number form.
func (s *Service) requestNetwork(ref, field string) (NetworkRef, *core.APIError) {
	if strings.TrimSpace(ref) == "" {
		return NetworkRef{}, badRequest("%s: the consumer network is required (projects/{project}/global/networks/{network}).", field)
	}
	if !strings.HasPrefix(core.RelativePath(ref), "projects/") {
		return NetworkRef{}, badRequest("%s: '%s' must be of the form projects/{project}/global/networks/{network}.", field, ref)
	}
	n, err := ParseNetwork(s.Store, ref, "")
	if err != nil {
		return NetworkRef{}, badRequest("%s: %v.", field, err)
	}
	return n, nil
}

// checkRanges verifies that every name is an allocated range (a VPC_PEERING address) of the network and that
// the ranges do not overlap each other.
func checkRanges(r Reader, n NetworkRef, names []string) error {
	var seen []Range
	for _, name := range names {
		rg, err := lookupRange(r, n, name)
		if err != nil {
			return failedPrecondition("%s", err.Error())
		}
		for _, o := range seen {
			if o.Prefix.Overlaps(rg.Prefix) {
				return failedPrecondition("Allocated IP ranges '%s' (%s) and '%s' (%s) overlap.", o.Name, o.Prefix, rg.Name, rg.Prefix)
			}
		}
		seen = append(seen, rg)
	}
	return nil
}

// rangeUsers names the producer resources holding blocks in any of the ranges.
func rangeUsers(r Reader, n NetworkRef, ranges []string) []string {
	var users []string
	for _, a := range allocations(r, n) {
		if a.Range != "" && slices.Contains(ranges, a.Range) {
			users = append(users, a.Owner)
		}
	}
	return users
}

func dedupe(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
