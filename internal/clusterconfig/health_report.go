package clusterconfig

import (
	"encoding/json"
	"strings"
	"time"
)

// The controller's health records, reported as guest attributes: GuestAttrHealth holds the
// repairs (in progress, and the newest done) and the newest events, trimmed to fit one value;
// HealthNodeAttr(node) holds one node's record. The hypercompute_cluster_health data source reads
// them.

// HealthEvent is one detection or repair step.
type HealthEvent struct {
	Time   time.Time `json:"time"`
	Node   string    `json:"node"`
	Kind   string    `json:"kind"` // detected, requeued, repair-started, repaired, repair-failed
	Check  string    `json:"check,omitempty"`
	Action string    `json:"action,omitempty"`
	Detail string    `json:"detail,omitempty"`
}

// HealthRepair is a repair in progress or done.
type HealthRepair struct {
	Node     string    `json:"node"`
	Action   string    `json:"action"`
	Check    string    `json:"check"`
	Reason   string    `json:"reason"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished,omitzero"`
	Result   string    `json:"result,omitempty"` // "" while in progress, ok, failed
	Detail   string    `json:"detail,omitempty"`
	// Host is the VM's physical host before the repair: a replace is done when the VM runs on
	// another one.
	Host string `json:"host,omitempty"`
	// SlurmdBefore is when the node's slurmd had started before the repair: a repair is done once
	// slurmd started again.
	SlurmdBefore time.Time `json:"slurmd_before,omitzero"`
}

// NodeHealth is one node's record.
type NodeHealth struct {
	Node         string    `json:"node"`
	Partition    string    `json:"partition"`
	State        string    `json:"state"`
	Reason       string    `json:"reason,omitempty"`
	LastFailure  string    `json:"last_failure,omitempty"`
	LastFailedAt time.Time `json:"last_failed_at,omitzero"`
	InService    time.Time `json:"in_service_since,omitzero"`
	Repairs      int       `json:"repairs"`
	// Spare: the node is held in its partition's spare reservation (spare_node_count).
	Spare bool `json:"spare,omitempty"`
}

// ClusterHealth is the GuestAttrHealth report.
type ClusterHealth struct {
	InProgress []HealthRepair    `json:"repairs_in_progress"`
	Done       []HealthRepair    `json:"repairs_done"`
	Events     []HealthEvent     `json:"events"`
	Policies   map[string]string `json:"policies"` // name → generation applied
}

// GuestAttrHealthNodePrefix + node name holds a node's NodeHealth.
const GuestAttrHealthNodePrefix = "health-node-"

// HealthNodeAttr is the guest attribute of a node's record.
func HealthNodeAttr(node string) string { return GuestAttrHealthNodePrefix + node }

// EncodeClusterHealth encodes the report within limit bytes, dropping the oldest events, then the
// oldest finished repairs, until it fits (repairs in progress always stay).
func EncodeClusterHealth(h ClusterHealth, limit int) string {
	for {
		b, _ := json.Marshal(h)
		if len(b) <= limit || len(h.Events) == 0 && len(h.Done) == 0 {
			return string(b)
		}
		if len(h.Events) > 0 {
			h.Events = h.Events[max(1, len(h.Events)/4):]
		} else {
			h.Done = h.Done[max(1, len(h.Done)/4):]
		}
	}
}

// DecodeHealthReport reads the controller's guest attributes (names without the namespace) into
// the report and the node records, sorted by node.
func DecodeHealthReport(attrs map[string]string) (ClusterHealth, []NodeHealth, error) {
	var h ClusterHealth
	if v, ok := attrs[GuestAttrHealth]; ok {
		if err := json.Unmarshal([]byte(v), &h); err != nil {
			return h, nil, err
		}
	}
	var nodes []NodeHealth
	for k, v := range attrs {
		if !strings.HasPrefix(k, GuestAttrHealthNodePrefix) {
			continue
		}
		var n NodeHealth
		if err := json.Unmarshal([]byte(v), &n); err != nil {
			return h, nil, err
		}
		nodes = append(nodes, n)
	}
	sortNodeHealth(nodes)
	return h, nodes, nil
}

func sortNodeHealth(n []NodeHealth) {
	for i := 1; i < len(n); i++ {
		for j := i; j > 0 && n[j].Node < n[j-1].Node; j-- {
			n[j], n[j-1] = n[j-1], n[j]
		}
	}
}
