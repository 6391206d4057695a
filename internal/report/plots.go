package report

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"image/color"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series colours: each series has its own, so a reader (and the browser test) can tell them
// apart in the SVG; none is black, the axes' colour.
var (
	colScheduling = color.RGBA{R: 0x1F, G: 0x77, B: 0xB4, A: 0xFF}
	colRuntime    = color.RGBA{R: 0x2C, G: 0xA0, B: 0x2C, A: 0xFF}
	colProgram    = color.RGBA{R: 0xFF, G: 0x7F, B: 0x0E, A: 0xFF}
	colLoss       = color.RGBA{R: 0x94, G: 0x67, B: 0xBD, A: 0xFF}
	colCheckpoint = color.RGBA{R: 0xD6, G: 0x27, B: 0x28, A: 0xFF}
	colRepair     = color.RGBA{R: 0x8C, G: 0x56, B: 0x4B, A: 0xFF}
	colDetected   = color.RGBA{R: 0xE3, G: 0x77, B: 0xC2, A: 0xFF}
	colRepaired   = color.RGBA{R: 0x17, G: 0xBE, B: 0xCF, A: 0xFF}
	colFailed     = color.RGBA{R: 0xBC, G: 0xBD, B: 0x22, A: 0xFF}
	colUtil       = color.RGBA{R: 0x7F, G: 0x7F, B: 0x7F, A: 0xFF}
)

// svg draws p as an inline <svg> element labelled for screen readers. The SVG canvas escapes
// every text it draws (job names in titles), and label is escaped here.
func svg(p *plot.Plot, w, h vg.Length, label string) (template.HTML, error) {
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	s := b.String()
	// Inline SVG takes no XML declaration.
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", fmt.Errorf("report: the SVG canvas wrote no <svg> element")
	}
	s = `<svg role="img" aria-label="` + html.EscapeString(label) + `" ` + s[i+len("<svg "):]
	return template.HTML(s), nil // #nosec G203 -- drawn here, its text escaped by vgsvg
}

// percentTicks label 0 to 100% (the axes reach above, for the legend).
var percentTicks = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25}, {Value: 50, Label: "50"}, {Value: 75}, {Value: 100, Label: "100"}})

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// goodputChart: per day, one bar per layer, in percent.
func goodputChart(days []Day) (template.HTML, error) {
	p := newPlot("Goodput per day", "day (UTC)", "%")
	// Headroom above 100% for the legend, so it covers no bar; ticks to 100% only.
	p.Y.Min, p.Y.Max = 0, 135
	p.Y.Tick.Marker = percentTicks
	names := make([]string, len(days))
	var sched, run, prog plotter.Values
	every := (len(days) + 13) / 14 // at most 14 day labels, so they never overlap
	for i, d := range days {
		if (len(days)-1-i)%every == 0 {
			names[i] = d.Date.UTC().Format("01-02")
		}
		var s, r, m float64
		if d.Jobs > 0 {
			s, r = 100*d.Scheduling, 100*d.Runtime
		}
		if d.HasProgram {
			m = 100 * d.Program
		}
		sched, run, prog = append(sched, s), append(run, r), append(prog, m)
	}
	w := vg.Points(max(2, min(14, 180/float64(max(1, len(days))))))
	for i, s := range []struct {
		name string
		v    plotter.Values
		c    color.Color
	}{{"scheduling", sched, colScheduling}, {"runtime", run, colRuntime}, {"program (MFU)", prog, colProgram}} {
		b, err := plotter.NewBarChart(s.v, w)
		if err != nil {
			return "", err
		}
		b.Color, b.LineStyle.Width, b.Offset = s.c, 0, vg.Length(i-1)*w
		p.Add(b)
		p.Legend.Add(s.name, b)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(days))-0.5 // whole bars at both ends
	return svg(p, 720, 300, "Goodput per day: scheduling, runtime and program (MFU) goodput in percent")
}

// lossChart: a job's loss by step, its checkpoints marked on the curve.
func lossChart(j Job) (template.HTML, error) {
	p := newPlot(fmt.Sprintf("Job %s %s: loss", j.ID, j.Name), "step", "loss")
	xy := make(plotter.XYs, len(j.Loss))
	for i, l := range j.Loss {
		xy[i] = plotter.XY{X: float64(l.Step), Y: l.Loss}
	}
	line, err := plotter.NewLine(xy)
	if err != nil {
		return "", err
	}
	line.Color, line.Width = colLoss, vg.Points(1.5)
	p.Add(line)
	p.Legend.Add("loss", line)
	var ck plotter.XYs
	for _, s := range j.CheckpointSteps {
		if y, ok := lossAt(j.Loss, s); ok {
			ck = append(ck, plotter.XY{X: float64(s), Y: y})
		}
	}
	if len(ck) > 0 {
		sc, err := plotter.NewScatter(ck)
		if err != nil {
			return "", err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: colCheckpoint, Radius: vg.Points(3.5), Shape: draw.PyramidGlyph{}}
		p.Add(sc)
		p.Legend.Add("checkpoint", sc)
	}
	return svg(p, 720, 260, fmt.Sprintf("Loss by step of job %s %s, checkpoints marked", j.ID, j.Name))
}

// lossAt interpolates the logged loss at step s (the trainer logs every few steps); false
// outside the logged range (a checkpoint of an earlier run's lost steps).
func lossAt(ls []LossPoint, s int) (float64, bool) {
	i := sort.Search(len(ls), func(i int) bool { return ls[i].Step >= s })
	switch {
	case i == len(ls):
		return 0, false
	case ls[i].Step == s:
		return ls[i].Loss, true
	case i == 0:
		return 0, false
	}
	a, b := ls[i-1], ls[i]
	return a.Loss + (b.Loss-a.Loss)*float64(s-a.Step)/float64(b.Step-a.Step), true
}

// timelineChart: one row per node; repairs as bars from start to end, events as marks.
func timelineChart(in Input) (template.HTML, error) {
	p := newPlot("Failures and repairs", "time (UTC)", "")
	p.X.Tick.Marker = plot.TimeTicks{Format: "01-02 15:04", Time: func(t float64) time.Time { return time.Unix(int64(t), 0).UTC() }}
	p.X.Min, p.X.Max = float64(in.Since.Unix()), float64(in.Generated.Unix())
	nodes := timelineNodes(in)
	row := map[string]float64{}
	for i, n := range nodes {
		row[n] = float64(i)
	}
	for i, r := range in.Repairs {
		end := r.End
		if end.IsZero() {
			end = in.Generated
		}
		l, err := plotter.NewLine(plotter.XYs{{X: float64(r.Start.Unix()), Y: row[r.Node]}, {X: float64(end.Unix()), Y: row[r.Node]}})
		if err != nil {
			return "", err
		}
		l.Color, l.Width = colRepair, vg.Points(6)
		p.Add(l)
		if i == 0 {
			p.Legend.Add("repair (start to end)", l)
		}
	}
	for _, k := range []struct {
		kind, legend string
		c            color.Color
		shape        draw.GlyphDrawer
	}{
		{"detected", "failure detected", colDetected, draw.CrossGlyph{}},
		{"repaired", "repaired", colRepaired, draw.CircleGlyph{}},
		{"repair-failed", "repair failed", colFailed, draw.BoxGlyph{}},
	} {
		var xy plotter.XYs
		for _, e := range in.Events {
			if e.Kind == k.kind {
				xy = append(xy, plotter.XY{X: float64(e.Time.Unix()), Y: row[e.Node]})
			}
		}
		if len(xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return "", err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: k.c, Radius: vg.Points(4), Shape: k.shape}
		p.Add(sc)
		p.Legend.Add(k.legend, sc)
	}
	p.NominalY(nodes...)
	// A row of headroom for the legend.
	p.Y.Min, p.Y.Max = -0.7, float64(len(nodes))+1.2
	return svg(p, 720, vg.Points(float64(110+22*len(nodes))), "Timeline of node failures and repairs")
}

// timelineNodes are the nodes the timeline has a row for, by name.
func timelineNodes(in Input) []string {
	seen := map[string]bool{}
	for _, r := range in.Repairs {
		seen[r.Node] = true
	}
	for _, e := range in.Events {
		seen[e.Node] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// utilisationChart: each partition's allocated share of its node time.
func utilisationChart(ps []Partition) (template.HTML, error) {
	p := newPlot("Utilisation per partition", "partition", "% of node time allocated")
	p.Y.Min, p.Y.Max = 0, 120
	p.Y.Tick.Marker = percentTicks
	names := make([]string, len(ps))
	v := make(plotter.Values, len(ps))
	for i, x := range ps {
		names[i], v[i] = x.Name, 100*x.Utilisation
	}
	b, err := plotter.NewBarChart(v, vg.Points(28))
	if err != nil {
		return "", err
	}
	b.Color, b.LineStyle.Width = colUtil, 0
	p.Add(b)
	p.Legend.Add("allocated", b)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(ps))-0.5
	return svg(p, 720, 260, "Utilisation per partition in percent of node time")
}
