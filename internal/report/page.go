package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"time"
)

//go:embed page.html.tmpl
var pageSource string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"pct": func(r float64) string { return strconv.FormatFloat(100*r, 'f', 1, 64) + "%" },
	"hours": func(s float64) string {
		return strconv.FormatFloat(s/3600, 'f', 1, 64)
	},
	"utc": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05")
	},
	"day":  func(t time.Time) string { return t.UTC().Format("2006-01-02 (Mon)") },
	"loss": func(l float64) string { return strconv.FormatFloat(l, 'f', 4, 64) },
}).Parse(pageSource))

// figure is one drawn chart and the series it holds (legend names), for the page.
type figure struct {
	ID     string
	Series []string
	SVG    template.HTML
}

type jobView struct {
	Job
	Figure   *figure
	LastLoss float64
	LastStep int
	// NotFinite: the loss went NaN or infinite (a diverged run), which is said, not drawn.
	NotFinite bool
}

type pageData struct {
	Input
	Title                       string
	Goodput, Timeline, Utilised *figure
	JobViews                    []jobView
	LossJobs                    int
}

// Render writes the page for in to w.
func Render(w io.Writer, in Input) error {
	d := pageData{Input: in, Title: "Goodput and health report"}
	if in.Cluster != "" {
		d.Title += ": " + in.Cluster
	}
	if err := d.draw(); err != nil {
		return err
	}
	// Rendered whole before writing, so a failure leaves no half page behind.
	var b bytes.Buffer
	if err := page.Execute(&b, d); err != nil {
		return err
	}
	_, err := b.WriteTo(w)
	return err
}

func (d *pageData) draw() error {
	var err error
	for _, day := range d.Days {
		if day.Jobs > 0 {
			d.Goodput = &figure{ID: "goodput-chart", Series: []string{"scheduling", "runtime", "program (MFU)"}}
			if d.Goodput.SVG, err = goodputChart(d.Days); err != nil {
				return fmt.Errorf("report: goodput chart: %w", err)
			}
			break
		}
	}
	for i, j := range d.Jobs {
		v := jobView{Job: j}
		if len(j.Loss) > 0 {
			v.LastStep, v.LastLoss = j.Loss[len(j.Loss)-1].Step, j.Loss[len(j.Loss)-1].Loss
			if !finite(j.Loss) {
				v.NotFinite = true
				d.JobViews = append(d.JobViews, v)
				continue
			}
			f := &figure{ID: "loss-chart-" + strconv.Itoa(i), Series: []string{"loss"}}
			if len(j.CheckpointSteps) > 0 {
				f.Series = append(f.Series, "checkpoint")
			}
			if f.SVG, err = lossChart(j); err != nil {
				return fmt.Errorf("report: loss chart of job %s: %w", j.ID, err)
			}
			v.Figure = f
			d.LossJobs++
		}
		d.JobViews = append(d.JobViews, v)
	}
	if len(d.Repairs) > 0 || len(d.Events) > 0 {
		f := &figure{ID: "timeline-chart"}
		if len(d.Repairs) > 0 {
			f.Series = append(f.Series, "repair (start to end)")
		}
		for _, k := range []struct{ kind, legend string }{{"detected", "failure detected"}, {"repaired", "repaired"}, {"repair-failed", "repair failed"}} {
			for _, e := range d.Events {
				if e.Kind == k.kind {
					f.Series = append(f.Series, k.legend)
					break
				}
			}
		}
		if f.SVG, err = timelineChart(d.Input); err != nil {
			return fmt.Errorf("report: timeline: %w", err)
		}
		d.Timeline = f
	}
	if len(d.Partitions) > 0 {
		d.Utilised = &figure{ID: "utilisation-chart", Series: []string{"allocated"}}
		if d.Utilised.SVG, err = utilisationChart(d.Partitions); err != nil {
			return fmt.Errorf("report: utilisation chart: %w", err)
		}
	}
	return nil
}

// finite: gonum's plotters refuse NaN and Inf.
func finite(ls []LossPoint) bool {
	for _, l := range ls {
		if math.IsNaN(l.Loss) || math.IsInf(l.Loss, 0) {
			return false
		}
	}
	return true
}
