package monitoring

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	dashboards "google.golang.org/api/monitoring/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// maxMosaicColumns is the widest mosaic layout the API accepts.
const maxMosaicColumns = 48

var dashboardIDRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,100}$`)

func dashboardName(project, id string) string { return "projects/" + project + "/dashboards/" + id }

func validateDashboard(d *dashboards.Dashboard) *core.APIError {
	if strings.TrimSpace(d.DisplayName) == "" {
		return badRequest("Field dashboard.displayName had an invalid value: A display name must be specified.")
	}
	layouts := 0
	for _, set := range []bool{d.GridLayout != nil, d.MosaicLayout != nil, d.RowLayout != nil, d.ColumnLayout != nil} {
		if set {
			layouts++
		}
	}
	if layouts > 1 {
		return badRequest("Field dashboard had an invalid value: at most one of gridLayout, mosaicLayout, rowLayout and columnLayout may be set.")
	}
	if m := d.MosaicLayout; m != nil {
		cols := m.Columns
		if cols == 0 {
			cols = maxMosaicColumns
		}
		if cols < 1 || cols > maxMosaicColumns {
			return badRequest("Field dashboard.mosaicLayout.columns had an invalid value of \"%d\": must be between 1 and %d.", m.Columns, maxMosaicColumns)
		}
		for i, t := range m.Tiles {
			if t.Width < 1 || t.Height < 1 || t.XPos < 0 || t.YPos < 0 || t.XPos+t.Width > cols {
				return badRequest("Field dashboard.mosaicLayout.tiles[%d] had an invalid value: the tile (xPos %d, width %d, height %d) must have a positive size and fit in %d columns.", i, t.XPos, t.Width, t.Height, cols)
			}
			if err := validateWidget(fmt.Sprintf("dashboard.mosaicLayout.tiles[%d].widget", i), t.Widget); err != nil {
				return err
			}
		}
	}
	if g := d.GridLayout; g != nil {
		for i, w := range g.Widgets {
			if err := validateWidget(fmt.Sprintf("dashboard.gridLayout.widgets[%d]", i), w); err != nil {
				return err
			}
		}
	}
	for k := range d.Labels {
		if !labelKeyRE.MatchString(k) {
			return badRequest("Field dashboard.labels had an invalid value: label key '%s' must start with a lowercase letter and contain only lowercase letters, digits, underscores and dashes.", k)
		}
	}
	return nil
}

// validateWidget checks the charts' queries the way the API does for what hypercompute draws: a
// time series filter names a metric type.
func validateWidget(f string, w *dashboards.Widget) *core.APIError {
	if w == nil {
		return badRequest("Field %s had an invalid value: a tile needs a widget.", f)
	}
	check := func(g string, q *dashboards.TimeSeriesQuery) *core.APIError {
		if q == nil {
			return badRequest("Field %s had an invalid value: a query must be specified.", g)
		}
		if tf := q.TimeSeriesFilter; tf != nil && !strings.Contains(tf.Filter, "metric.type") {
			return badRequest("Field %s.timeSeriesFilter.filter had an invalid value of \"%s\": The filter must specify a metric type.", g, tf.Filter)
		}
		return nil
	}
	if x := w.XyChart; x != nil {
		if len(x.DataSets) == 0 {
			return badRequest("Field %s.xyChart.dataSets had an invalid value: at least one data set must be specified.", f)
		}
		for i, ds := range x.DataSets {
			if err := check(fmt.Sprintf("%s.xyChart.dataSets[%d].timeSeriesQuery", f, i), ds.TimeSeriesQuery); err != nil {
				return err
			}
		}
	}
	if sc := w.Scorecard; sc != nil {
		if err := check(f+".scorecard.timeSeriesQuery", sc.TimeSeriesQuery); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) createDashboard(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	var d dashboards.Dashboard
	if err := readBody(r, &d); err != nil {
		core.WriteError(w, r, err)
		return
	}
	validateOnly, err := boolParam(r, "validateOnly")
	if err != nil {
		core.WriteError(w, r, err)
		return
	}
	if err := validateDashboard(&d); err != nil {
		core.WriteError(w, r, err)
		return
	}
	// A create may name its dashboard (projects/P/dashboards/ID); otherwise the server picks the id.
	id := strconv.FormatUint(s.Rand.ID(), 16)
	if d.Name != "" {
		p, got, ok := strings.Cut(strings.TrimPrefix(d.Name, "projects/"), "/dashboards/")
		if !ok || !strings.HasPrefix(d.Name, "projects/") || (p != project && p != core.ProjectNumber(project)) || !dashboardIDRE.MatchString(got) {
			core.WriteError(w, r, badRequest("Field dashboard.name had an invalid value of \"%s\": must be projects/%s/dashboards/[DASHBOARD_ID], the id of letters, digits, '_' and '-'.", d.Name, project))
			return
		}
		id = got
	}
	name := dashboardName(project, id)
	d.Name = name
	d.Etag = s.Rand.Hex(16)
	if validateOnly {
		core.WriteJSON(w, http.StatusOK, &d)
		return
	}
	uerr := s.Store.Update(func(tx *core.Tx) error {
		if tx.Exists(KindDashboards, name) {
			return core.GoogleError(http.StatusConflict, "Dashboard '%s' already exists.", name)
		}
		return tx.Put(KindDashboards, name, &d)
	})
	if uerr != nil {
		core.WriteError(w, r, uerr)
		return
	}
	core.WriteJSON(w, http.StatusOK, &d)
}

func (s *Service) getDashboard(w http.ResponseWriter, r *http.Request) {
	name := dashboardName(r.PathValue("project"), r.PathValue("id"))
	raw, ok := s.Store.GetRaw(KindDashboards, name)
	if !ok {
		core.WriteError(w, r, notFound("Requested entity was not found."))
		return
	}
	core.WriteJSON(w, http.StatusOK, raw)
}

// patchDashboard replaces a dashboard (the API has no update mask here). The request must carry the etag
// it read: an empty one is refused, a stale one is a conflict (ABORTED), so two editors never overwrite
// each other.
func (s *Service) patchDashboard(w http.ResponseWriter, r *http.Request) {
	name := dashboardName(r.PathValue("project"), r.PathValue("id"))
	var d dashboards.Dashboard
	if err := readBody(r, &d); err != nil {
		core.WriteError(w, r, err)
		return
	}
	validateOnly, err := boolParam(r, "validateOnly")
	if err != nil {
		core.WriteError(w, r, err)
		return
	}
	if d.Etag == "" {
		core.WriteError(w, r, badRequest("Update Dashboard should specify a non empty etag."))
		return
	}
	if err := validateDashboard(&d); err != nil {
		core.WriteError(w, r, err)
		return
	}
	uerr := s.Store.Update(func(tx *core.Tx) error {
		var cur dashboards.Dashboard
		ok, err := tx.Get(KindDashboards, name, &cur)
		if err != nil {
			return err
		}
		if !ok {
			return notFound("Requested entity was not found.")
		}
		if cur.Etag != d.Etag {
			return &core.APIError{Code: http.StatusConflict, Status: "ABORTED",
				Message: fmt.Sprintf("Etag '%s' does not match the current etag of dashboard '%s': the dashboard was changed since it was read.", d.Etag, name)}
		}
		d.Name = name
		d.Etag = s.Rand.Hex(16)
		if validateOnly {
			return nil
		}
		return tx.Put(KindDashboards, name, &d)
	})
	if uerr != nil {
		core.WriteError(w, r, uerr)
		return
	}
	core.WriteJSON(w, http.StatusOK, &d)
}

func (s *Service) deleteDashboard(w http.ResponseWriter, r *http.Request) {
	name := dashboardName(r.PathValue("project"), r.PathValue("id"))
	if !s.Store.Delete(KindDashboards, name) {
		core.WriteError(w, r, notFound("Requested entity was not found."))
		return
	}
	core.WriteJSON(w, http.StatusOK, map[string]any{})
}

func (s *Service) listDashboards(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	recs, next, err := page(r, s.Store.List(KindDashboards, "projects/"+project+"/dashboards/"), nil)
	if err != nil {
		core.WriteError(w, r, err)
		return
	}
	ds, derr := decodeAll[dashboards.Dashboard](recs)
	if derr != nil {
		core.WriteError(w, r, derr)
		return
	}
	core.WriteJSON(w, http.StatusOK, &dashboards.ListDashboardsResponse{Dashboards: ds, NextPageToken: next})
}
