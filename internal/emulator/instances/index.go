package instances

import (
	"encoding/json"
	"sync"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// index answers "which instance has this IP" and "which instances use this resource policy" without scanning the
// store. It follows committed store changes (see onChange).
type index struct {
	mu       sync.RWMutex
	entries  map[string]indexEntry      // instance key → what it holds
	byIP     map[string]string          // primary IP → instance key
	byPolicy map[string]map[string]bool // resource policy key → instance keys
}

type indexEntry struct {
	nics     []nicAddr
	policies []string
}

type nicAddr struct{ subnet, ip string }

func newIndex() *index {
	return &index{entries: map[string]indexEntry{}, byIP: map[string]string{}, byPolicy: map[string]map[string]bool{}}
}

// instanceProbe is the part of an instance record the index and lifecycle watchers read; decoding only these
// fields keeps the watcher cheap when thousands of VMs change in one transaction.
type instanceProbe struct {
	Status            string `json:"status"`
	NetworkInterfaces []struct {
		NetworkIP  string `json:"networkIP"`
		Subnetwork string `json:"subnetwork"`
	} `json:"networkInterfaces"`
	ResourcePolicies []string `json:"resourcePolicies"`
	ResourceStatus   struct {
		Scheduling struct {
			TerminationTimestamp string `json:"terminationTimestamp"`
		} `json:"scheduling"`
	} `json:"resourceStatus"`
	Scheduling struct {
		InstanceTerminationAction string `json:"instanceTerminationAction"`
	} `json:"scheduling"`
	LastStartTimestamp string `json:"lastStartTimestamp"`
}

func probe(b json.RawMessage) (instanceProbe, bool) {
	var p instanceProbe
	if b == nil || json.Unmarshal(b, &p) != nil {
		return p, false
	}
	return p, true
}

func entryOf(p instanceProbe) indexEntry {
	var e indexEntry
	for _, n := range p.NetworkInterfaces {
		if n.NetworkIP != "" {
			e.nics = append(e.nics, nicAddr{core.RelativePath(n.Subnetwork), n.NetworkIP})
		}
	}
	for _, pol := range p.ResourcePolicies {
		e.policies = append(e.policies, core.RelativePath(pol))
	}
	return e
}

// set replaces what key holds; it returns the previous entry.
func (x *index) set(key string, e indexEntry) indexEntry {
	x.mu.Lock()
	defer x.mu.Unlock()
	old := x.entries[key]
	x.removeLocked(key, old)
	x.entries[key] = e
	if len(e.nics) > 0 {
		x.byIP[e.nics[0].ip] = key
	}
	for _, p := range e.policies {
		m := x.byPolicy[p]
		if m == nil {
			m = map[string]bool{}
			x.byPolicy[p] = m
		}
		m[key] = true
	}
	return old
}

func (x *index) remove(key string) indexEntry {
	x.mu.Lock()
	defer x.mu.Unlock()
	old := x.entries[key]
	x.removeLocked(key, old)
	delete(x.entries, key)
	return old
}

func (x *index) removeLocked(key string, old indexEntry) {
	if len(old.nics) > 0 && x.byIP[old.nics[0].ip] == key {
		delete(x.byIP, old.nics[0].ip)
	}
	for _, p := range old.policies {
		if m := x.byPolicy[p]; m != nil {
			delete(m, key)
			if len(m) == 0 {
				delete(x.byPolicy, p)
			}
		}
	}
}

func (x *index) keyByIP(ip string) (string, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	k, ok := x.byIP[ip]
	return k, ok
}

// policyMembers returns the instances using a resource policy.
func (x *index) policyMembers(policy string) []string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	out := make([]string, 0, len(x.byPolicy[policy]))
	for k := range x.byPolicy[policy] {
		out = append(out, k)
	}
	return out
}
