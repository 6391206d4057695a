// Package monitoring renders what the controller's Prometheus runs with: its configuration
// (scrape jobs that read a file of targets), the target file the agent rewrites as nodes come and
// go, and the project's alerting rules with the cluster's thresholds.
package monitoring

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"sort"
	"strconv"
	"text/template"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

//go:embed rules.yml.tmpl
var rulesTemplate string

var rulesTmpl = template.Must(template.New("rules").Delims("[[", "]]").Parse(rulesTemplate))

// File names inside the Prometheus directory.
const (
	ConfigFile  = "prometheus.yml"
	RulesFile   = "rules.yml"
	TargetsFile = "targets.json"
	DataDir     = "data"
)

// Rules renders the alerting rules with the block's thresholds.
func Rules(m *cc.Monitoring) ([]byte, error) {
	iv := int(m.Interval() / time.Second)
	var b bytes.Buffer
	err := rulesTmpl.Execute(&b, map[string]any{
		"Interval":       iv,
		"StallIntervals": m.StallIntervals(),
		"StallSeconds":   m.StallIntervals() * iv,
		"StallRange":     fmt.Sprintf("[%ds]", m.StallIntervals()*iv),
		"GoodputTarget":  strconv.FormatFloat(m.Target(), 'f', -1, 64),
		// Conditions that can flap wait two evaluations.
		"For": 2 * iv,
	})
	return b.Bytes(), err
}

// Config renders prometheus.yml for a cluster: the agents of every VM from TargetsFile, and
// Prometheus itself at self.
func Config(cluster string, m *cc.Monitoring, dir, self string) []byte {
	iv := int(m.Interval() / time.Second)
	timeout := min(iv, 10)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return fmt.Appendf(nil, `# Written by hypercompute-agent from the cluster's monitoring block; changes are overwritten.
global:
  scrape_interval: %[1]ds
  scrape_timeout: %[2]ds
  evaluation_interval: %[1]ds
  external_labels:
    cluster: %[3]s
rule_files:
  - %[4]s
scrape_configs:
  - job_name: hypercompute
    # The controller's series about other nodes carry their own node label; it wins over the
    # target's (which would rename it exported_node).
    honor_labels: true
    file_sd_configs:
      - files:
          - %[5]s
        refresh_interval: %[1]ds
  - job_name: prometheus
    static_configs:
      - targets:
          - %[6]s
`, iv, timeout, q(cluster), q(filepath.Join(dir, RulesFile)), q(filepath.Join(dir, TargetsFile)), q(self))
}

// Target is one VM the agents serve metrics on.
type Target struct {
	Node      string
	Role      cc.Role
	Partition string
}

// Targets renders the file_sd target list: one group per VM, labelled with its node name, role
// and partition, at node:port (the cluster's names resolve on its network). Sorted, so an
// unchanged cluster writes the same bytes and Prometheus is not told of a change.
func Targets(ts []Target, port int) []byte {
	sort.Slice(ts, func(i, j int) bool { return ts[i].Node < ts[j].Node })
	type group struct {
		Targets []string          `json:"targets"`
		Labels  map[string]string `json:"labels"`
	}
	groups := make([]group, 0, len(ts))
	for _, t := range ts {
		l := map[string]string{"node": t.Node, "role": string(t.Role)}
		if t.Partition != "" {
			l["partition"] = t.Partition
		}
		groups = append(groups, group{Targets: []string{net.JoinHostPort(t.Node, strconv.Itoa(port))}, Labels: l})
	}
	b, _ := json.MarshalIndent(groups, "", "  ")
	return append(b, '\n')
}
