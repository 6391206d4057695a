package agent

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/report"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurm"
)

// ReportPath is where the controller serves the HTML report (GET /report?since=7d).
const ReportPath = "/report"

// ReportAddr is the controller's listener for the report: inside the cluster's network only
// (the network's firewall admits no outside traffic to it); a user reaches it through an SSH
// tunnel to the controller.
const ReportAddr = ":8642"

// reportDefaultWindow is the window of a /report request without ?since.
const reportDefaultWindow = "7d"

// reportHandler serves the page gather builds for the request's window.
func reportHandler(gather func(ctx context.Context, window string) (report.Input, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "the report is read with GET", http.StatusMethodNotAllowed)
			return
		}
		window := r.URL.Query().Get("since")
		if window == "" {
			window = reportDefaultWindow
		}
		if _, err := ParseWindow(window); err != nil {
			http.Error(w, "since: "+err.Error(), http.StatusBadRequest)
			return
		}
		in, err := gather(r.Context(), window)
		var b bytes.Buffer
		if err == nil {
			err = report.Render(&b, in)
		}
		if err != nil {
			http.Error(w, "the report cannot be made: "+err.Error(), http.StatusInternalServerError)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		// The page is self-contained: nothing may load from anywhere, inline styles aside.
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		h.Set("Cache-Control", "no-store")
		h.Set("Content-Length", strconv.Itoa(b.Len()))
		if r.Method == http.MethodGet {
			b.WriteTo(w)
		}
	})
}

// MountReport mounts the controller's report on mux at ReportPath, for any server the agent
// runs (the report's own listener, or one shared with other endpoints).
func MountReport(mux *http.ServeMux, h http.Handler) { mux.Handle(ReportPath, h) }

// reportServer is the controller's report listener, started once accounting is up.
type reportServer struct {
	mu      sync.Mutex
	started bool
	cluster string
}

// reportFor gathers the controller's report: its Slurm accounting, its recipe jobs' run
// directories and its health records.
func (c *controller) reportFor(ctx context.Context, window string) (report.Input, error) {
	runDirs := map[string]string{}
	for _, rec := range c.loadJobRecords(filepath.Join(c.stateDir, "jobs")) {
		if rec.JobID != 0 && rec.RunDir != "" {
			runDirs[strconv.Itoa(rec.JobID)] = rec.RunDir
		}
	}
	c.report.mu.Lock()
	cluster := c.report.cluster
	c.report.mu.Unlock()
	src := reportSources{cli: slurm.CLI{Conf: clientConf, Run: runCommand}, runDirs: runDirs, cluster: cluster}
	st, err := readHealthState(c.healthStatePath())
	switch {
	case err == nil:
		src.health = st
	case errors.Is(err, fs.ErrNotExist):
		src.health = &healthState{Nodes: map[string]*nodeRecord{}} // no policy recorded anything yet
	default:
		src.healthNote = "Health records not shown: " + err.Error()
	}
	return gatherReport(ctx, src, window, time.Now())
}

// serveReport starts the controller's report listener once (again on a later pass if it could
// not listen); it stops with ctx.
func (c *controller) serveReport(ctx context.Context, cluster string) {
	c.report.mu.Lock()
	defer c.report.mu.Unlock()
	c.report.cluster = cluster
	if c.report.started {
		return
	}
	l, err := net.Listen("tcp", ReportAddr)
	if err != nil {
		c.log.Warn("cannot serve the report", "addr", ReportAddr, "error", err.Error())
		return
	}
	c.report.started = true
	mux := http.NewServeMux()
	MountReport(mux, reportHandler(c.reportFor))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			c.log.Warn("the report listener stopped", "error", err.Error())
		}
	}()
	c.log.Info("serving the goodput report", "addr", ReportAddr, "path", ReportPath)
}
