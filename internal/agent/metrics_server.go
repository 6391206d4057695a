package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/cloudmon"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/metrics"
)

// httpServer is the agent's HTTP endpoint on the VM's internal address and the cluster's metrics
// port: /metrics, and whatever else registers on Mux (a report page). It listens only while the
// cluster's monitoring block is on, and moves when the port changes.
type httpServer struct {
	mu   sync.Mutex
	mux  *http.ServeMux
	srv  *http.Server
	addr string
	// allowed are the source addresses served (the controller's, this VM's, loopback).
	allowed atomic.Pointer[map[string]bool]
}

// ServeHTTP answers only the controller (where Prometheus runs) and this VM itself: the cluster's
// firewall rule admits every VM of the subnet to every port, and a node's metrics are the
// controller's to read.
func (s *httpServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	allowed := s.allowed.Load()
	if err != nil || allowed == nil || !(*allowed)[host] {
		http.Error(w, "this VM's metrics are served to the cluster's controller only", http.StatusForbidden)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// allowFrom sets the addresses served: loopback, this VM's own and the controller's, by its
// address in the node config or its name.
func (s *httpServer) allowFrom(self string, c cc.Controller) {
	allowed := map[string]bool{"127.0.0.1": true, "::1": true, self: true}
	if c.Address != "" {
		allowed[c.Address] = true
	}
	if addrs, err := net.LookupHost(c.Hostname); err == nil {
		for _, a := range addrs {
			allowed[a] = true
		}
	}
	s.allowed.Store(&allowed)
}

// Mux is the agent's HTTP handlers; others add theirs before or after the server starts.
func (h *host) Mux() *http.ServeMux {
	h.http.mu.Lock()
	defer h.http.mu.Unlock()
	if h.http.mux == nil {
		h.http.mux = http.NewServeMux()
		h.http.mux.Handle("GET /metrics", h.metrics().Handler())
	}
	return h.http.mux
}

// metrics is this agent's registry, made on first use (tests build hosts without Run).
func (h *host) metrics() *metrics.Registry {
	h.regOnce.Do(func() {
		if h.reg == nil {
			h.reg = metrics.New()
		}
	})
	return h.reg
}

// serveHTTP makes the server listen on addr ("" stops it).
func (h *host) serveHTTP(addr string) error {
	h.Mux()
	s := &h.http
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.addr == addr {
		return nil
	}
	if s.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s.srv.Shutdown(ctx)
		cancel()
		s.srv, s.addr = nil, ""
	}
	if addr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serving metrics on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	s.srv, s.addr = srv, addr
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			h.log.Warn("metrics server", "addr", addr, "error", err.Error())
		}
	}()
	h.log.Info("serving metrics", "addr", addr)
	return nil
}

// monitoringOf is the cluster's monitoring block as this VM sees it: the controller reads its own
// metadata; login and compute VMs never read the cluster's config, so they read the copy the
// controller publishes beside slurm.conf on /home (cc.SharedMonitoring). ok is false while that
// cannot be known yet (the controller has not published).
func monitoringOf(n cc.Node, attrs map[string]string) (m *cc.Monitoring, err error) {
	if n.Role == cc.RoleController {
		c, _, err := DesiredConfig(attrs)
		if err != nil {
			return nil, err
		}
		return c.Monitoring, nil
	}
	b, err := os.ReadFile(path.Join(n.Mounts.SharedDir(), cc.SharedSlurmDir, cc.SharedMonitoring))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m = &cc.Monitoring{}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("%s: %w", cc.SharedMonitoring, err)
	}
	return m, nil
}

// monitor serves metrics on the VM's internal address while the cluster's monitoring is on.
// Binding the internal address keeps the port off a public one; the firewall admits only the
// controller.
func (h *host) monitor(ctx context.Context, n cc.Node, attrs map[string]string) {
	m, err := monitoringOf(n, attrs)
	if err != nil {
		h.log.Warn("reading the monitoring settings", "error", err.Error())
		return
	}
	// Cloud Monitoring gets the registry's key series while cloud_monitoring is on (cloudmon.go).
	h.cloudMonitoring(ctx, &h.cloud, n.Cluster, m, cloudmon.FromGatherer(h.metrics()))
	if m == nil {
		if err := h.serveHTTP(""); err != nil {
			h.log.Warn("stopping the metrics server", "error", err.Error())
		}
		return
	}
	h.startSamplers(n)
	ip := h.listenIP
	if ip == "" {
		if ip, err = h.md.InternalIP(ctx); err != nil {
			h.log.Warn("the VM's internal address", "error", err.Error())
			return
		}
	}
	h.http.allowFrom(ip, n.Controller)
	if err := h.serveHTTP(net.JoinHostPort(ip, strconv.Itoa(m.Port()))); err != nil {
		h.log.Warn("metrics", "error", err.Error())
	}
}
