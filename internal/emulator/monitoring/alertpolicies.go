package monitoring

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	monitoring "google.golang.org/api/monitoring/v3"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Alert policy limits of the public API.
const (
	maxConditions = 6
	maxUserLabels = 64
)

var (
	labelKeyRE   = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`)
	labelValueRE = regexp.MustCompile(`^[a-z0-9_-]{0,63}$`)
	durationRE   = regexp.MustCompile(`^[0-9]+(\.[0-9]{1,9})?s$`)
	channelRE    = regexp.MustCompile(`^projects/[^/]+/notificationChannels/[^/]+$`)
	comparisons  = map[string]bool{"COMPARISON_GT": true, "COMPARISON_GE": true, "COMPARISON_LT": true, "COMPARISON_LE": true, "COMPARISON_EQ": true, "COMPARISON_NE": true}
	combiners    = map[string]bool{"AND": true, "OR": true, "AND_WITH_MATCHING_RESOURCE": true}
	severities   = map[string]bool{"": true, "CRITICAL": true, "ERROR": true, "WARNING": true}
)

func policyName(project, id string) string { return "projects/" + project + "/alertPolicies/" + id }

// readPolicy decodes a policy body and says whether it set "enabled" (which defaults to true).
func readPolicy(r *http.Request) (*monitoring.AlertPolicy, bool, *core.APIError) {
	b, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		return nil, false, badRequest("Could not read request body: %v", err)
	}
	var p monitoring.AlertPolicy
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, false, badRequest("Invalid JSON payload received. %v", err)
	}
	_ = json.Unmarshal(b, &fields)
	_, enabledSet := fields["enabled"]
	return &p, enabledSet, nil
}

func validatePolicy(p *monitoring.AlertPolicy) *core.APIError {
	if strings.TrimSpace(p.DisplayName) == "" {
		return badRequest("Field alert_policy.display_name had an invalid value: A display name must be specified.")
	}
	n := len(p.Conditions)
	if n == 0 {
		return badRequest("Field alert_policy.conditions had an invalid value: At least one condition must be specified.")
	}
	if n > maxConditions {
		return badRequest("Field alert_policy.conditions had an invalid value: A policy can have at most %d conditions, got %d.", maxConditions, n)
	}
	if n > 1 && !combiners[p.Combiner] {
		return badRequest("Field alert_policy.combiner had an invalid value of \"%s\": A combiner (AND, OR, AND_WITH_MATCHING_RESOURCE) must be specified when a policy has more than one condition.", p.Combiner)
	}
	if p.Combiner != "" && !combiners[p.Combiner] {
		return badRequest("Field alert_policy.combiner had an invalid value of \"%s\".", p.Combiner)
	}
	if !severities[p.Severity] {
		return badRequest("Field alert_policy.severity had an invalid value of \"%s\".", p.Severity)
	}
	for i, c := range p.Conditions {
		if err := validateCondition(fmt.Sprintf("alert_policy.conditions[%d]", i), c); err != nil {
			return err
		}
	}
	if len(p.UserLabels) > maxUserLabels {
		return badRequest("Field alert_policy.user_labels had an invalid value: at most %d labels, got %d.", maxUserLabels, len(p.UserLabels))
	}
	for k, v := range p.UserLabels {
		if !labelKeyRE.MatchString(k) {
			return badRequest("Field alert_policy.user_labels had an invalid value: label key '%s' must start with a lowercase letter and contain only lowercase letters, digits, underscores and dashes (at most 63 characters).", k)
		}
		if !labelValueRE.MatchString(v) {
			return badRequest("Field alert_policy.user_labels had an invalid value: label value '%s' of '%s' must contain only lowercase letters, digits, underscores and dashes (at most 63 characters).", v, k)
		}
	}
	for i, ch := range p.NotificationChannels {
		if !channelRE.MatchString(ch) {
			return badRequest("Field alert_policy.notification_channels[%d] had an invalid value of \"%s\": must be projects/[PROJECT_ID_OR_NUMBER]/notificationChannels/[CHANNEL_ID].", i, ch)
		}
	}
	return nil
}

// minAlignmentSeconds is the shortest alignment period an alerting condition takes.
const minAlignmentSeconds = 60

func alignment(f string, a *monitoring.Aggregation) *core.APIError {
	if a == nil || a.AlignmentPeriod == "" {
		return nil
	}
	if !durationRE.MatchString(a.AlignmentPeriod) {
		return badRequest("Invalid value at '%s.alignment_period' (type.googleapis.com/google.protobuf.Duration), Illegal duration format; duration must end with 's': \"%s\"", f, a.AlignmentPeriod)
	}
	if secs, _ := strconv.ParseFloat(strings.TrimSuffix(a.AlignmentPeriod, "s"), 64); secs < minAlignmentSeconds {
		return badRequest("Field %s.alignment_period had an invalid value of \"%s\": The alignment period must be at least %d seconds.", f, a.AlignmentPeriod, minAlignmentSeconds)
	}
	return nil
}

func validateCondition(f string, c *monitoring.Condition) *core.APIError {
	if c == nil {
		return badRequest("Field %s had an invalid value: the condition is empty.", f)
	}
	if strings.TrimSpace(c.DisplayName) == "" {
		return badRequest("Field %s.display_name had an invalid value: A display name must be specified.", f)
	}
	set := 0
	for _, ok := range []bool{c.ConditionThreshold != nil, c.ConditionAbsent != nil, c.ConditionPrometheusQueryLanguage != nil,
		c.ConditionMonitoringQueryLanguage != nil, c.ConditionMatchedLog != nil, c.ConditionSql != nil} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return badRequest("Field %s had an invalid value: exactly one condition type must be specified, got %d.", f, set)
	}
	duration := func(field, d string, required bool) *core.APIError {
		if d == "" && !required {
			return nil
		}
		if !durationRE.MatchString(d) {
			return badRequest("Invalid value at '%s' (type.googleapis.com/google.protobuf.Duration), Field '%s', Illegal duration format; duration must end with 's': \"%s\"", f, field, d)
		}
		return nil
	}
	switch {
	case c.ConditionThreshold != nil:
		t := c.ConditionThreshold
		if !strings.Contains(t.Filter, "metric.type") {
			return badRequest("Field %s.condition_threshold.filter had an invalid value of \"%s\": The filter must specify a metric type.", f, t.Filter)
		}
		if _, err := parseFilter(t.Filter); err != nil {
			return badRequest("Field %s.condition_threshold.filter had an invalid value of \"%s\": %v", f, t.Filter, err)
		}
		for j, a := range t.Aggregations {
			if err := alignment(fmt.Sprintf("%s.condition_threshold.aggregations[%d]", f, j), a); err != nil {
				return err
			}
		}
		if !comparisons[t.Comparison] {
			return badRequest("Field %s.condition_threshold.comparison had an invalid value of \"%s\".", f, t.Comparison)
		}
		return duration("duration", t.Duration, true)
	case c.ConditionAbsent != nil:
		a := c.ConditionAbsent
		if !strings.Contains(a.Filter, "metric.type") {
			return badRequest("Field %s.condition_absent.filter had an invalid value of \"%s\": The filter must specify a metric type.", f, a.Filter)
		}
		if _, err := parseFilter(a.Filter); err != nil {
			return badRequest("Field %s.condition_absent.filter had an invalid value of \"%s\": %v", f, a.Filter, err)
		}
		return duration("duration", a.Duration, true)
	case c.ConditionPrometheusQueryLanguage != nil:
		q := c.ConditionPrometheusQueryLanguage
		if strings.TrimSpace(q.Query) == "" {
			return badRequest("Field %s.condition_prometheus_query_language.query had an invalid value: A query must be specified.", f)
		}
		if err := duration("duration", q.Duration, false); err != nil {
			return err
		}
		return duration("evaluationInterval", q.EvaluationInterval, false)
	}
	return core.GoogleError(http.StatusNotImplemented, "Field %s: the emulator serves conditionThreshold, conditionAbsent and conditionPrometheusQueryLanguage only.", f)
}

// finish fills the server's fields: condition names (kept where the condition had one of this policy),
// the mutation records.
func (s *Service) finish(p *monitoring.AlertPolicy, name string, prior *monitoring.AlertPolicy) {
	now := s.Now().UTC().Format(time.RFC3339Nano)
	p.Name = name
	known := map[string]bool{}
	if prior != nil {
		for _, c := range prior.Conditions {
			known[c.Name] = true
		}
		p.CreationRecord = prior.CreationRecord
	} else {
		p.CreationRecord = &monitoring.MutationRecord{MutateTime: now, MutatedBy: s.user()}
	}
	for _, c := range p.Conditions {
		if !known[c.Name] {
			c.Name = name + "/conditions/" + strconv.FormatUint(s.Rand.ID(), 10)
		}
	}
	p.MutationRecord = &monitoring.MutationRecord{MutateTime: now, MutatedBy: s.user()}
}

func (s *Service) user() string {
	if s.User != "" {
		return s.User
	}
	return "emulator@hypercompute.local"
}

func (s *Service) createPolicy(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	p, enabledSet, err := readPolicy(r)
	if err != nil {
		core.WriteError(w, r, err)
		return
	}
	if err := validatePolicy(p); err != nil {
		core.WriteError(w, r, err)
		return
	}
	if !enabledSet {
		p.Enabled = true
	}
	name := policyName(project, strconv.FormatUint(s.Rand.ID(), 10))
	s.finish(p, name, nil)
	if err := s.Store.Put(KindPolicies, name, p); err != nil {
		core.WriteError(w, r, err)
		return
	}
	core.WriteJSON(w, http.StatusOK, p)
}

func (s *Service) getPolicy(w http.ResponseWriter, r *http.Request) {
	name := policyName(r.PathValue("project"), r.PathValue("id"))
	raw, ok := s.Store.GetRaw(KindPolicies, name)
	if !ok {
		core.WriteError(w, r, core.GoogleNotFound(name))
		return
	}
	core.WriteJSON(w, http.StatusOK, raw)
}

// policyFields maps updateMask paths (either spelling) to the field they name.
var policyFields = map[string]string{
	"display_name": "displayName", "displayName": "displayName", "documentation": "documentation",
	"user_labels": "userLabels", "userLabels": "userLabels", "conditions": "conditions", "combiner": "combiner",
	"enabled": "enabled", "notification_channels": "notificationChannels", "notificationChannels": "notificationChannels",
	"severity": "severity", "alert_strategy": "alertStrategy", "alertStrategy": "alertStrategy",
}

func (s *Service) patchPolicy(w http.ResponseWriter, r *http.Request) {
	name := policyName(r.PathValue("project"), r.PathValue("id"))
	in, enabledSet, err := readPolicy(r)
	if err != nil {
		core.WriteError(w, r, err)
		return
	}
	var paths []string
	if m := r.URL.Query().Get("updateMask"); m != "" {
		for _, p := range strings.Split(m, ",") {
			f, ok := policyFields[strings.TrimSpace(p)]
			if !ok {
				core.WriteError(w, r, badRequest("Field update_mask had an invalid value: the field '%s' cannot be updated.", p))
				return
			}
			paths = append(paths, f)
		}
	}
	var out *monitoring.AlertPolicy
	uerr := s.Store.Update(func(tx *core.Tx) error {
		var cur monitoring.AlertPolicy
		ok, err := tx.Get(KindPolicies, name, &cur)
		if err != nil {
			return err
		}
		if !ok {
			return core.GoogleNotFound(name)
		}
		next := in
		if paths != nil {
			c := cur
			next = &c
			for _, f := range paths {
				switch f {
				case "displayName":
					next.DisplayName = in.DisplayName
				case "documentation":
					next.Documentation = in.Documentation
				case "userLabels":
					next.UserLabels = in.UserLabels
				case "conditions":
					next.Conditions = in.Conditions
				case "combiner":
					next.Combiner = in.Combiner
				case "enabled":
					next.Enabled = in.Enabled
				case "notificationChannels":
					next.NotificationChannels = in.NotificationChannels
				case "severity":
					next.Severity = in.Severity
				case "alertStrategy":
					next.AlertStrategy = in.AlertStrategy
				}
			}
		} else if !enabledSet {
			next.Enabled = true
		}
		if verr := validatePolicy(next); verr != nil {
			return verr
		}
		s.finish(next, name, &cur)
		out = next
		return tx.Put(KindPolicies, name, next)
	})
	if uerr != nil {
		core.WriteError(w, r, uerr)
		return
	}
	core.WriteJSON(w, http.StatusOK, out)
}

func (s *Service) deletePolicy(w http.ResponseWriter, r *http.Request) {
	name := policyName(r.PathValue("project"), r.PathValue("id"))
	if !s.Store.Delete(KindPolicies, name) {
		core.WriteError(w, r, core.GoogleNotFound(name))
		return
	}
	core.WriteJSON(w, http.StatusOK, map[string]any{})
}

func (s *Service) listPolicies(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	clauses, ok := listFilter(w, r, func(path string) bool {
		_, label := userLabel(path)
		return label || path == "display_name"
	}, "alert policies by display_name and user_labels")
	if !ok {
		return
	}
	keep := func(rec core.Record) bool {
		var p monitoring.AlertPolicy
		if rec.Decode(&p) != nil {
			return false
		}
		for _, c := range clauses {
			v, ok := p.DisplayName, true
			if k, is := userLabel(c.path); is {
				v, ok = p.UserLabels[k]
			}
			if !c.match(v, ok) {
				return false
			}
		}
		return true
	}
	all := s.Store.List(KindPolicies, "projects/"+project+"/alertPolicies/")
	total := 0
	for _, rec := range all {
		if keep(rec) {
			total++
		}
	}
	recs, next, err := page(r, all, keep)
	if err != nil {
		core.WriteError(w, r, err)
		return
	}
	ps, derr := decodeAll[monitoring.AlertPolicy](recs)
	if derr != nil {
		core.WriteError(w, r, derr)
		return
	}
	core.WriteJSON(w, http.StatusOK, &monitoring.ListAlertPoliciesResponse{AlertPolicies: ps, NextPageToken: next, TotalSize: int64(total)})
}

func userLabel(path string) (string, bool) {
	for _, p := range []string{"user_labels.", "user_label."} {
		if k, ok := strings.CutPrefix(path, p); ok && k != "" {
			return k, true
		}
	}
	return "", false
}
