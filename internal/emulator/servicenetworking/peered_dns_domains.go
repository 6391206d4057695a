package servicenetworking

import (
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"

	sn "google.golang.org/api/servicenetworking/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// KindPeeredDNSDomains holds the peered DNS domains of a network's connection to a service;
// key projects/{projectID}/global/networks/{network}/services/{service}/peeredDnsDomains/{name}, value a
// PeeredDnsDomain.
const KindPeeredDNSDomains = "servicenetworking.peeredDnsDomains"

// Types of the peered DNS domain operations' metadata and response, as the real API tags them.
const (
	peeredDNSDomainTypeURL       = "type.googleapis.com/google.cloud.servicenetworking.v1.PeeredDnsDomain"
	peeredDNSDomainMetaTypeURL   = "type.googleapis.com/google.cloud.servicenetworking.v1.PeeredDnsDomainMetadata"
	deletePeeredDNSDomainTypeURL = "type.googleapis.com/google.cloud.servicenetworking.v1.DeletePeeredDnsDomainMetadata"
)

// peeredDNSName is the API's rule for a peered DNS domain's name: 1-63 characters, a lowercase letter first,
// a letter or digit last, lowercase letters, digits and dashes between.
var peeredDNSName = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)

// dnsSuffix is a DNS name with the trailing dot Cloud DNS requires.
var dnsSuffix = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\.)+$`)

func registerPeeredDNSDomains(s *Service) {
	const domains = prefix + "/services/{service}/projects/{project}/global/networks/{network}/peeredDnsDomains"
	s.Router.Handle("POST "+domains, "servicenetworking.services.projects.global.networks.peeredDnsDomains.create", core.Mutating, s.createPeeredDNSDomain)
	s.Router.Handle("GET "+domains, "servicenetworking.services.projects.global.networks.peeredDnsDomains.list", core.Read, s.listPeeredDNSDomains)
	s.Router.Handle("DELETE "+domains+"/{name}", "servicenetworking.services.projects.global.networks.peeredDnsDomains.delete", core.Mutating, s.deletePeeredDNSDomain)
}

func peeredDNSPrefix(n NetworkRef, service string) string {
	return connectionKey(n, service) + "/peeredDnsDomains/"
}

// pathNetwork reads the consumer network of a peered DNS domain path (project ID or number).
func (s *Service) pathNetwork(r *http.Request) (NetworkRef, *core.APIError) {
	return s.requestNetwork("projects/"+r.PathValue("project")+"/global/networks/"+r.PathValue("network"), "parent")
}

func (s *Service) createPeeredDNSDomain(w http.ResponseWriter, r *http.Request) {
	service := r.PathValue("service")
	net, aerr := s.pathNetwork(r)
	if aerr != nil {
		core.WriteError(w, r, aerr)
		return
	}
	var body sn.PeeredDnsDomain
	if err := core.ReadJSON(r, &body); err != nil {
		core.WriteError(w, r, err)
		return
	}
	if !peeredDNSName.MatchString(body.Name) {
		core.WriteError(w, r, badRequest("peeredDnsDomain.name: '%s' must be 1-63 characters long, begin with a lowercase letter, end with a letter or digit, and contain only lowercase letters, digits or dashes.", body.Name))
		return
	}
	if body.DnsSuffix == "" || !dnsSuffix.MatchString(strings.ToLower(body.DnsSuffix)) {
		core.WriteError(w, r, badRequest("peeredDnsDomain.dnsSuffix: '%s' is not a valid DNS suffix; it must be a DNS name ending with a dot, e.g. 'example.com.'.", body.DnsSuffix))
		return
	}
	d := sn.PeeredDnsDomain{Name: body.Name, DnsSuffix: body.DnsSuffix}
	l := s.Ops.StartLRO(r, core.LROSpec{
		Metadata: func(bool, time.Time) any { return core.Typed(peeredDNSDomainMetaTypeURL, struct{}{}) },
		Apply: func(tx *core.Tx) (any, error) {
			if !net.Exists(tx) {
				return nil, opNotFound("Network '%s' not found.", net.ConsumerNetwork())
			}
			if ok, _ := tx.Get(KindConnections, connectionKey(net, service), nil); !ok {
				return nil, failedPrecondition("No connection to service '%s' found for network '%s'; a peered DNS domain needs the network's private service connection.", service, net.ConsumerNetwork())
			}
			key := peeredDNSPrefix(net, service) + d.Name
			if ok, _ := tx.Get(KindPeeredDNSDomains, key, nil); ok {
				return nil, core.NewOpError(http.StatusConflict, "ALREADY_EXISTS", "Peered DNS domain '"+d.Name+"' already exists in network '"+net.ConsumerNetwork()+"'.")
			}
			if err := tx.Put(KindPeeredDNSDomains, key, &d); err != nil {
				return nil, err
			}
			return core.Typed(peeredDNSDomainTypeURL, &d), nil
		},
	})
	writeOperation(w, l)
}

// listPeeredDNSDomains answers the network's domains for the service by name; none is {}.
func (s *Service) listPeeredDNSDomains(w http.ResponseWriter, r *http.Request) {
	net, aerr := s.pathNetwork(r)
	if aerr != nil {
		core.WriteError(w, r, aerr)
		return
	}
	out := &sn.ListPeeredDnsDomainsResponse{}
	for _, rec := range s.Store.List(KindPeeredDNSDomains, peeredDNSPrefix(net, r.PathValue("service"))) {
		var d sn.PeeredDnsDomain
		if rec.Decode(&d) == nil {
			out.PeeredDnsDomains = append(out.PeeredDnsDomains, &d)
		}
	}
	sort.Slice(out.PeeredDnsDomains, func(i, j int) bool { return out.PeeredDnsDomains[i].Name < out.PeeredDnsDomains[j].Name })
	core.WriteJSON(w, http.StatusOK, out)
}

func (s *Service) deletePeeredDNSDomain(w http.ResponseWriter, r *http.Request) {
	service, name := r.PathValue("service"), r.PathValue("name")
	net, aerr := s.pathNetwork(r)
	if aerr != nil {
		core.WriteError(w, r, aerr)
		return
	}
	l := s.Ops.StartLRO(r, core.LROSpec{
		Metadata: func(bool, time.Time) any { return core.Typed(deletePeeredDNSDomainTypeURL, struct{}{}) },
		Apply: func(tx *core.Tx) (any, error) {
			key := peeredDNSPrefix(net, service) + name
			if ok, _ := tx.Get(KindPeeredDNSDomains, key, nil); !ok {
				return nil, opNotFound("Peered DNS domain '%s' not found in network '%s'.", name, net.ConsumerNetwork())
			}
			tx.Delete(KindPeeredDNSDomains, key)
			return core.Typed(emptyTypeURL, struct{}{}), nil
		},
	})
	writeOperation(w, l)
}
