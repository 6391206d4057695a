package report

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromium finds Debian's headless-capable browser (scripts/install-deps.sh installs it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (scripts/install-deps.sh installs Debian's chromium): the page is not checked in a browser")
	return ""
}

// headless runs the browser on the page with mode's flags (--dump-dom, --screenshot=...) and
// returns its standard output.
func headless(ctx context.Context, t *testing.T, browser, page string, mode ...string) []byte {
	t.Helper()
	// root needs --no-sandbox; a profile of its own keeps runs apart.
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--window-size=1280,2000"}, mode...)
	cmd := exec.CommandContext(ctx, browser, append(args, "file://"+page)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", browser, mode, err, errb.String())
	}
	return out.Bytes()
}

// The page as Chromium renders it: its DOM holds the titles, every figure as an SVG with the
// paths of each series, and nothing that loads from elsewhere; its screenshot shows the
// charts' colours.
func TestPageRendersInChromium(t *testing.T) {
	browser := chromium(t)
	// Both browser runs together (about 4 s on an idle machine) stay under 30 s.
	ctx, cancel := context.WithTimeout(context.Background(), 28*time.Second)
	defer cancel()
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := Render(&b, sample()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	dom := string(headless(ctx, t, browser, page, "--dump-dom"))
	for _, s := range []string{"<title>Goodput and health report: ml-dev</title>", "<h1>Goodput and health report: ml-dev</h1>",
		"<h2>Goodput per day</h2>", "<h2>Jobs: loss and checkpoints</h2>", "<h2>Failures and repairs</h2>", "<h2>Utilisation per partition</h2>"} {
		if !strings.Contains(dom, s) {
			t.Errorf("the rendered DOM lacks %s", s)
		}
	}
	figs := figureRe.FindAllStringSubmatch(dom, -1)
	if len(figs) != 4 {
		t.Fatalf("the rendered DOM has %d figures, want 4", len(figs))
	}
	for _, f := range figs {
		id, series, svg := f[1], f[2], f[3]
		// One whole <svg> per figure, with a size: markup the browser could not parse would
		// close it early or spill over into the next figure.
		if strings.Count(svg, "<svg") != 1 || !strings.HasSuffix(strings.TrimSpace(svg), "</svg>") || !regexp.MustCompile(`viewBox="0 0 [1-9]`).MatchString(svg) {
			t.Errorf("figure %s is not one sized SVG in the DOM", id)
		}
		for _, s := range strings.Split(series, "|") {
			c := hexColour(seriesColours[s])
			if !regexp.MustCompile(`<path d="M[^"]+" style="[^"]*(fill|stroke):` + c).MatchString(svg) {
				t.Errorf("figure %s: the DOM has no path of series %q (%s)", id, s, c)
			}
			if !strings.Contains(svg, ">"+s+"</text>") {
				t.Errorf("figure %s: the DOM has no legend %q", id, s)
			}
		}
	}
	// No broken images: nothing on the page loads from anywhere.
	if m := regexp.MustCompile(`<(img|image|object|embed|iframe|link|script)\b|\b(src|href)=`).FindString(dom); m != "" {
		t.Errorf("the rendered page loads something (%s)", m)
	}

	shot := filepath.Join(dir, "report.png")
	headless(ctx, t, browser, page, "--screenshot="+shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	if got := img.Bounds().Size(); got != image.Pt(1280, 2000) {
		t.Errorf("screenshot %v, want 1280x2000", got)
	}
	// The charts in the first 2000 pixels drew their series: each colour covers some pixels.
	counts := colourCounts(img, []color.RGBA{colScheduling, colRuntime, colProgram, colLoss, colCheckpoint})
	for c, n := range counts {
		if n < 20 {
			t.Errorf("the screenshot shows %d pixels of %s: a chart did not render", n, hexColour(c))
		}
	}
	if distinct(img) < 16 {
		t.Error("the screenshot is (nearly) blank")
	}
	if t.Failed() {
		keep := filepath.Join(os.TempDir(), "hypercompute-report-failed")
		os.MkdirAll(keep, 0o755)
		os.WriteFile(filepath.Join(keep, "report.html"), b.Bytes(), 0o644)
		os.WriteFile(filepath.Join(keep, "dom.html"), []byte(dom), 0o644)
		if png, err := os.ReadFile(shot); err == nil {
			os.WriteFile(filepath.Join(keep, "report.png"), png, 0o644)
		}
		t.Logf("the page, its DOM and the screenshot are in %s", keep)
	}
}

// colourCounts counts the pixels within a small distance of each colour (edges are blended).
func colourCounts(img image.Image, cs []color.RGBA) map[color.RGBA]int {
	out := map[color.RGBA]int{}
	for _, c := range cs {
		out[c] = 0
	}
	near := func(a, b uint8) bool { return a-b < 6 || b-a < 6 }
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			p := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			for _, c := range cs {
				if near(p.R, c.R) && near(p.G, c.G) && near(p.B, c.B) {
					out[c]++
				}
			}
		}
	}
	return out
}

// distinct counts the colours of the image, up to 1000.
func distinct(img image.Image) int {
	seen := map[color.Color]bool{}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y && len(seen) < 1000; y += 3 {
		for x := r.Min.X; x < r.Max.X; x += 3 {
			seen[img.At(x, y)] = true
		}
	}
	return len(seen)
}
