package report

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"
)

func render(t *testing.T, in Input) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, in); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// figureRe finds each figure and the series it says it holds.
var figureRe = regexp.MustCompile(`(?s)<figure id="([^"]+)" data-series="([^"]*)">(.*?)</figure>`)

func TestPageHasEverySeries(t *testing.T) {
	page := render(t, sample())
	for _, s := range []string{
		"<title>Goodput and health report: ml-dev</title>",
		"<h2>Goodput per day</h2>", "<h2>Jobs: loss and checkpoints</h2>", "<h2>Failures and repairs</h2>", "<h2>Utilisation per partition</h2>",
		"<td>2026-12-03 (Thu)</td><td>4</td><td>84.0%</td><td>83.0%</td><td>35.0%</td>", // a day's numbers in the table
		"<td>2026-12-02 (Wed)</td><td>0</td><td>—</td><td>—</td><td>—</td>",             // a day without jobs
		"<td>400</td><td>1.3962</td><td>3</td>",                                         // job 41's last step, loss, checkpoints
		"<td>gpu</td><td>4</td><td>168.0</td><td>25.0%</td><td>1</td><td>1.0</td>",
		"XID 79 &lt;fell off the bus&gt;",
	} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
	want := map[string]string{
		"goodput-chart":     "scheduling|runtime|program (MFU)",
		"loss-chart-0":      "loss|checkpoint",
		"timeline-chart":    "repair (start to end)|failure detected|repaired|repair failed",
		"utilisation-chart": "allocated",
	}
	figs := figureRe.FindAllStringSubmatch(page, -1)
	if len(figs) != len(want) {
		t.Fatalf("%d figures, want %d (job 42 logged no loss, so has none)", len(figs), len(want))
	}
	for _, f := range figs {
		id, series, svg := f[1], f[2], f[3]
		if want[id] != series {
			t.Errorf("figure %s holds %q, want %q", id, series, want[id])
		}
		if !strings.HasPrefix(svg, `<svg role="img" aria-label="`) || strings.Contains(svg, "<?xml") {
			t.Errorf("figure %s is no inline svg: %.80q", id, svg)
		}
		for _, s := range strings.Split(series, "|") {
			// The legend names the series, and something is drawn in its colour.
			if !strings.Contains(svg, ">"+strings.ReplaceAll(s, "(", "(")+"</text>") {
				t.Errorf("figure %s: no legend %q", id, s)
			}
			if c := hexColour(seriesColours[s]); !regexp.MustCompile(`<path d="M[^"]+" style="[^"]*(fill|stroke):` + c).MatchString(svg) {
				t.Errorf("figure %s: no path drawn in %s's colour %s", id, s, c)
			}
		}
	}
	if strings.Contains(page, "http://") && !strings.Contains(page, `xmlns="http://www.w3.org/2000/svg"`) || regexp.MustCompile(`(src|href)=`).MatchString(page) {
		t.Error("the page refers to something outside itself")
	}
}

func TestPageEscapesText(t *testing.T) {
	page := render(t, sample())
	if strings.Contains(page, "<script>") {
		t.Fatal("a job name reached the page as markup")
	}
	// In the table (html/template) and in the loss chart's title (the SVG canvas).
	if n := strings.Count(page, "tiny&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"); n < 2 {
		t.Errorf("the escaped job name appears %d times, want the table and the chart title", n)
	}
}

func TestPageEmptyWindowSaysSo(t *testing.T) {
	in := sample()
	in.Days = []Day{{Date: in.Since}}
	in.Jobs, in.Repairs, in.Events, in.Partitions = nil, nil, nil, nil
	in.Notes = []string{"health records are on the controller"}
	page := render(t, in)
	for _, s := range []string{
		"No job ran or waited in this window.", "No recipe job logged a loss in this window.", "No jobs in this window.",
		"No failures or repairs in this window.", "No partition ran a job in this window.",
		`<p class="note">health records are on the controller</p>`,
	} {
		if !strings.Contains(page, s) {
			t.Errorf("the empty page lacks %q", s)
		}
	}
	if strings.Contains(page, "<svg") {
		t.Error("the empty page draws a chart")
	}
}

func TestPageDivergedLoss(t *testing.T) {
	in := sample()
	in.Jobs[0].Loss[3].Loss = math.NaN()
	page := render(t, in)
	if !strings.Contains(page, "loss is not a number (diverged)") || strings.Contains(page, `id="loss-chart-0"`) {
		t.Error("a NaN loss is neither said nor left undrawn")
	}
}

func TestLossAt(t *testing.T) {
	ls := []LossPoint{{10, 4}, {20, 2}, {30, 1}}
	for s, want := range map[int]float64{10: 4, 15: 3, 30: 1, 25: 1.5} {
		if got, ok := lossAt(ls, s); !ok || got != want {
			t.Errorf("lossAt(%d) = %v %v, want %v", s, got, ok, want)
		}
	}
	for _, s := range []int{5, 31} {
		if _, ok := lossAt(ls, s); ok {
			t.Errorf("lossAt(%d) outside the logged steps", s)
		}
	}
}

// A 30-day window labels at most 14 days (the newest always), so the labels never overlap.
func TestGoodputChartThinsDayLabels(t *testing.T) {
	in := sample()
	in.Days = nil
	for i := range 31 {
		in.Days = append(in.Days, Day{Date: in.Generated.AddDate(0, 0, i-30).Truncate(24 * time.Hour), Jobs: 1, Scheduling: 0.5, Runtime: 0.5})
	}
	svg := figureRe.FindStringSubmatch(render(t, in))[3]
	labels := regexp.MustCompile(`>\d\d-\d\d</text>`).FindAllString(svg, -1)
	if len(labels) > 14 || len(labels) < 8 || labels[len(labels)-1] != ">12-07</text>" {
		t.Errorf("day labels %v, want at most 14 ending with the last day", labels)
	}
}
