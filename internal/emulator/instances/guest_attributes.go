package instances

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Guest attribute limits. The public documentation we could reach does not state them; these are deliberately
// modest so a guest that works against the emulator stays within what Compute accepts (UNCONFIRMED).
const (
	MaxGuestAttributeValue = 4096
	MaxGuestAttributesSize = 1 << 20
)

var guestNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// GuestAttributeSet is what a VM wrote through its metadata server, by namespace and key.
type GuestAttributeSet struct {
	Values map[string]map[string]string `json:"values,omitempty"`
}

// Entries lists the attributes under queryPath ("" for all, "NS/" for a namespace, "NS/KEY" for one), sorted.
func (g GuestAttributeSet) Entries(queryPath string) []*computepb.GuestAttributesEntry {
	ns, key, _ := strings.Cut(queryPath, "/")
	var out []*computepb.GuestAttributesEntry
	for n, kv := range g.Values {
		if ns != "" && n != ns {
			continue
		}
		for k, v := range kv {
			if key != "" && k != key {
				continue
			}
			out = append(out, &computepb.GuestAttributesEntry{Namespace: proto.String(n), Key: proto.String(k), Value: proto.String(v)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].GetNamespace() != out[j].GetNamespace() {
			return out[i].GetNamespace() < out[j].GetNamespace()
		}
		return out[i].GetKey() < out[j].GetKey()
	})
	return out
}

func (g GuestAttributeSet) size() int {
	n := 0
	for ns, kv := range g.Values {
		for k, v := range kv {
			n += len(ns) + len(k) + len(v)
		}
	}
	return n
}

// Errors of guest attribute writes, for the metadata server to map onto HTTP answers.
var (
	ErrGuestAttributesDisabled = errors.New("guest attributes endpoint access is disabled")
	ErrNoInstance              = errors.New("instance not found")
)

// GuestAttributesEnabled reports whether metadata enable-guest-attributes is TRUE on the instance, or on the
// project when the instance does not set it.
func (s *Service) GuestAttributesEnabled(key string, inst *computepb.Instance) bool {
	for _, md := range []*computepb.Metadata{inst.GetMetadata(), s.ProjectMetadata(projectOf(key))} {
		for _, it := range md.GetItems() {
			if it.GetKey() == "enable-guest-attributes" {
				return strings.EqualFold(strings.TrimSpace(it.GetValue()), "true")
			}
		}
	}
	return false
}

func projectOf(key string) string {
	p, _, _ := scopePartsOf(key)
	return p
}

// ProjectMetadata returns the project's commonInstanceMetadata (nil when the project resource does not exist).
func (s *Service) ProjectMetadata(project string) *computepb.Metadata {
	return s.projectMetadata(project)
}

// GuestAttributes returns what the instance at key wrote.
func (s *Service) GuestAttributes(key string) GuestAttributeSet {
	var g GuestAttributeSet
	_, _ = s.Store.Get(KindGuestAttributes, key, &g)
	return g
}

// PutGuestAttribute stores namespace/name = value for the instance at key, as a PUT to the VM's metadata server
// does. Errors: ErrNoInstance, ErrGuestAttributesDisabled, or a validation error.
func (s *Service) PutGuestAttribute(key, namespace, name, value string) error {
	if !guestNameRE.MatchString(namespace) || !guestNameRE.MatchString(name) {
		return fmt.Errorf("guest attribute namespace and key must match %s", guestNameRE)
	}
	if len(value) > MaxGuestAttributeValue {
		return fmt.Errorf("guest attribute value is %d bytes; the limit is %d", len(value), MaxGuestAttributeValue)
	}
	return s.Store.Update(func(tx *core.Tx) error {
		var inst computepb.Instance
		if ok, _ := tx.Get(KindInstances, key, &inst); !ok {
			return ErrNoInstance
		}
		if !s.guestAttributesEnabledTx(tx, key, &inst) {
			return ErrGuestAttributesDisabled
		}
		var g GuestAttributeSet
		_, _ = tx.Get(KindGuestAttributes, key, &g)
		if g.Values == nil {
			g.Values = map[string]map[string]string{}
		}
		if g.Values[namespace] == nil {
			g.Values[namespace] = map[string]string{}
		}
		g.Values[namespace][name] = value
		if g.size() > MaxGuestAttributesSize {
			return fmt.Errorf("guest attributes of the instance would exceed %d bytes", MaxGuestAttributesSize)
		}
		return tx.Put(KindGuestAttributes, key, g)
	})
}

// DeleteGuestAttribute removes namespace/name (a DELETE to the metadata server).
func (s *Service) DeleteGuestAttribute(key, namespace, name string) error {
	return s.Store.Update(func(tx *core.Tx) error {
		var inst computepb.Instance
		if ok, _ := tx.Get(KindInstances, key, &inst); !ok {
			return ErrNoInstance
		}
		if !s.guestAttributesEnabledTx(tx, key, &inst) {
			return ErrGuestAttributesDisabled
		}
		var g GuestAttributeSet
		if ok, _ := tx.Get(KindGuestAttributes, key, &g); !ok || g.Values[namespace] == nil {
			return nil
		}
		delete(g.Values[namespace], name)
		if len(g.Values[namespace]) == 0 {
			delete(g.Values, namespace)
		}
		if len(g.Values) == 0 {
			tx.Delete(KindGuestAttributes, key)
			return nil
		}
		return tx.Put(KindGuestAttributes, key, g)
	})
}

func (s *Service) guestAttributesEnabledTx(tx *core.Tx, key string, inst *computepb.Instance) bool {
	var p computepb.Project
	var projectMD *computepb.Metadata
	if ok, _ := tx.Get(KindProjects, "projects/"+projectOf(key), &p); ok {
		projectMD = p.GetCommonInstanceMetadata()
	}
	for _, md := range []*computepb.Metadata{inst.GetMetadata(), projectMD} {
		for _, it := range md.GetItems() {
			if it.GetKey() == "enable-guest-attributes" {
				return strings.EqualFold(strings.TrimSpace(it.GetValue()), "true")
			}
		}
	}
	return false
}

// getGuestAttributes serves instances.getGuestAttributes: queryPath "NS/" (or "NS/KEY") answers queryValue.items,
// variableKey "NS/KEY" answers variableValue; nothing matching is a 404, as the API answers until the guest has
// written something.
func (s *Service) getGuestAttributes(w http.ResponseWriter, r *http.Request) {
	key, _, ok := s.instanceFor(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	queryPath, variableKey := q.Get("queryPath"), q.Get("variableKey")
	g := s.GuestAttributes(key)
	out := &computepb.GuestAttributes{Kind: proto.String("compute#guestAttributes")}
	if variableKey != "" {
		entries := g.Entries(variableKey)
		ns, k, _ := strings.Cut(variableKey, "/")
		if k == "" || len(entries) != 1 || entries[0].GetNamespace() != ns {
			fail(w, r, core.NotFound(key+"/guestAttributes/"+variableKey))
			return
		}
		out.VariableKey = proto.String(variableKey)
		out.VariableValue = proto.String(entries[0].GetValue())
		out.SelfLink = proto.String(core.SelfLink(key) + "/guestAttributes/" + variableKey)
		core.WriteJSON(w, http.StatusOK, out)
		return
	}
	entries := g.Entries(queryPath)
	if len(entries) == 0 {
		fail(w, r, core.NotFound(key+"/guestAttributes/"+queryPath))
		return
	}
	out.QueryPath = proto.String(queryPath)
	out.QueryValue = &computepb.GuestAttributesValue{Items: entries}
	out.SelfLink = proto.String(core.SelfLink(key) + "/guestAttributes/" + queryPath)
	core.WriteJSON(w, http.StatusOK, out)
}
