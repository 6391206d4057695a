package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// Health records: kept in the controller's state dir and reported (clusterconfig.ClusterHealth).
type (
	HealthEvent  = cc.HealthEvent
	HealthRepair = cc.HealthRepair
)

// nodeRecord is a node's record and what only the controller needs of it.
type nodeRecord struct {
	cc.NodeHealth
	// RequeuedAt: the node's jobs were requeued and the repair waits for them to leave.
	RequeuedAt time.Time `json:"requeued_at,omitzero"`
	Requeued   []string  `json:"requeued,omitempty"`
}

// healthState is what the controller remembers between passes and restarts.
type healthState struct {
	Nodes      map[string]*nodeRecord `json:"nodes"`
	InProgress []HealthRepair         `json:"in_progress"`
	Done       []HealthRepair         `json:"done"`
	Events     []HealthEvent          `json:"events"`
	LastStart  time.Time              `json:"last_start,omitzero"`
	// Spares: each partition's nodes held in its spare reservation.
	Spares map[string][]string `json:"spares,omitempty"`
}

const maxHealthRecords = 200

func (c *controller) healthStatePath() string { return filepath.Join(c.stateDir, "health-state.json") }

func (c *controller) loadHealth() *healthState {
	s, err := readHealthState(c.healthStatePath())
	if err != nil {
		return &healthState{Nodes: map[string]*nodeRecord{}}
	}
	return s
}

// readHealthState reads the health records at path (the report reads them outside a controller
// pass too). A file without a nodes map is no record.
func readHealthState(path string) (*healthState, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := &healthState{}
	if err := json.Unmarshal(b, s); err != nil || s.Nodes == nil {
		return nil, fmt.Errorf("health records %s are not readable JSON", path)
	}
	return s, nil
}

func (c *controller) saveHealth(s *healthState) error {
	if len(s.Events) > maxHealthRecords {
		s.Events = s.Events[len(s.Events)-maxHealthRecords:]
	}
	if len(s.Done) > maxHealthRecords {
		s.Done = s.Done[len(s.Done)-maxHealthRecords:]
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = writeFile(c.healthStatePath(), append(b, '\n'), 0o600, rootAccount)
	return err
}

// reportHealth reports the repairs and newest events, and each node's record that changed.
func (c *controller) reportHealth(ctx context.Context, st *healthState) {
	rep := cc.ClusterHealth{InProgress: st.InProgress, Done: st.Done, Events: st.Events, Policies: map[string]string{}}
	for _, p := range c.policies {
		rep.Policies[p.Name] = p.Generation
	}
	c.rep.set(ctx, cc.GuestAttrHealth, cc.EncodeClusterHealth(rep, maxHealthAttr))
	if c.reportedNodes == nil {
		c.reportedNodes = map[string]string{}
	}
	for name, rec := range st.Nodes {
		b, err := json.Marshal(rec.NodeHealth)
		if err != nil || c.reportedNodes[name] == string(b) {
			continue
		}
		c.rep.set(ctx, cc.HealthNodeAttr(name), string(b))
		c.reportedNodes[name] = string(b)
	}
	c.reportPolicies(ctx)
}

// maxHealthAttr keeps the report within one guest attribute value (4 KB in the local cloud;
// Compute does not document its limit).
const maxHealthAttr = 4000

// reportPolicies reports each policy's applied generation and withdraws the report of a policy
// whose key is gone, which the provider's destroy waits for.
func (c *controller) reportPolicies(ctx context.Context) {
	now := map[string]bool{}
	for _, p := range c.policies {
		now[p.Name] = true
		c.rep.set(ctx, cc.HealthPolicyAttr(p.Name), p.Generation)
	}
	for name := range c.reportedPolicies {
		if !now[name] {
			c.rep.clear(ctx, cc.HealthPolicyAttr(name))
		}
	}
	c.reportedPolicies = now
}
