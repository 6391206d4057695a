// Package metadata emulates the Compute Engine metadata server (http://metadata.google.internal/computeMetadata/v1/)
// for the emulator's VMs: instance and project values and attributes, recursive JSON, ?alt=, wait_for_change with
// ETags, guest attribute reads and writes, and service-account tokens. It is compatible with GCE_METADATA_HOST and
// Go's cloud.google.com/go/compute/metadata client.
//
// A request is tied to a VM in one of two ways:
//   - per-VM listeners: StartFor(instanceKey) opens 127.0.0.1:PORT serving that VM only (what agents run as plain
//     processes, tests and runtime hosts use; the admin call
//     POST /emulator/v1/projects/P/zones/Z/instances/I:metadataServer answers {"host":"127.0.0.1:PORT"});
//   - the emulator's own listener under /computeMetadata/v1/, which picks the VM whose primary internal IP is the
//     request's source address.
//
// Listeners close when their VM is deleted and when the emulator closes.
package metadata

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// Server is the metadata server of every emulated VM.
type Server struct {
	srv  *core.Server
	inst *instances.Service

	mu        sync.Mutex
	listeners map[string]*vmListener // by instance key
	closed    bool
	waiters   map[string]map[chan struct{}]bool // instance key → change signals
	cancel    func()
	// actions are further admin verbs on one instance (POST .../instances/NAME:VERB), registered
	// by other parts of the emulator; they share this route because ServeMux cannot match a
	// wildcard followed by ":verb" in one segment.
	actions map[string]InstanceAction
}

// InstanceAction serves POST /emulator/v1/projects/P/zones/Z/instances/NAME:VERB for one existing instance.
type InstanceAction func(w http.ResponseWriter, r *http.Request, instanceKey string)

// HandleAction registers an admin verb on instances.
func (m *Server) HandleAction(verb string, fn InstanceAction) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.actions == nil {
		m.actions = map[string]InstanceAction{}
	}
	m.actions[verb] = fn
}

type vmListener struct {
	addr   string
	hs     *http.Server
	cancel context.CancelFunc
}

// Register mounts the metadata server on srv: the source-address route under /computeMetadata/v1/, the admin
// route that opens per-VM listeners, and the instances service's hook so hosts booted by a runtime get their own
// listener. inst is the instances service (instances.Register's result).
func Register(srv *core.Server, inst *instances.Service) *Server {
	m := &Server{srv: srv, inst: inst, listeners: map[string]*vmListener{}, waiters: map[string]map[chan struct{}]bool{}}
	m.cancel = srv.Store.Watch(m.onChange)
	srv.Router.Handle("/computeMetadata/v1/", "metadata.get", core.Admin, m.serveBySource)
	srv.Router.Handle("POST /emulator/v1/projects/{project}/zones/{zone}/instances/{action}", "emulator.instances.metadataServer", core.Admin, m.adminStart)
	srv.OnClose(m.Close)
	srv.Provide("metadata", m)
	inst.SetMetadataServers(m)
	return m
}

// StartFor opens (or returns the already open) dedicated listener of the VM at instanceKey
// ("projects/P/zones/Z/instances/N") and returns its host:port, for GCE_METADATA_HOST.
func (m *Server) StartFor(instanceKey string) (string, error) {
	if _, ok := m.inst.Instance(instanceKey); !ok {
		return "", fmt.Errorf("metadata server: instance %s does not exist", instanceKey)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", errors.New("metadata server: closed")
	}
	if l := m.listeners[instanceKey]; l != nil {
		return l.addr, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithCancel(context.Background())
	key := instanceKey
	hs := &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { m.serve(w, r, key) }),
		ReadHeaderTimeout: 30 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func() { _ = hs.Serve(ln) }()
	l := &vmListener{addr: ln.Addr().String(), hs: hs, cancel: cancel}
	m.listeners[instanceKey] = l
	return l.addr, nil
}

// Handler serves the metadata of the VM at instanceKey (for embedding in another server or a test).
func (m *Server) Handler(instanceKey string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { m.serve(w, r, instanceKey) })
}

// Addr returns the host:port of the VM's listener, if one is open.
func (m *Server) Addr(instanceKey string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l := m.listeners[instanceKey]; l != nil {
		return l.addr, true
	}
	return "", false
}

// stop closes the VM's listener (its pending wait_for_change calls return).
func (m *Server) stop(instanceKey string) {
	m.mu.Lock()
	l := m.listeners[instanceKey]
	delete(m.listeners, instanceKey)
	m.mu.Unlock()
	if l != nil {
		l.cancel()
		go l.hs.Close() // not under the store's notification path: Close waits for nothing, but keep it off it
	}
}

// Close closes every listener; later StartFor calls fail.
func (m *Server) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	ls := m.listeners
	m.listeners = map[string]*vmListener{}
	m.mu.Unlock()
	for _, l := range ls {
		l.cancel()
		_ = l.hs.Close()
	}
	m.cancel()
}

// serveBySource answers on the emulator's own listener for the VM whose primary address sent the request.
func (m *Server) serveBySource(w http.ResponseWriter, r *http.Request) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	key, ok := m.inst.KeyByIP(host)
	if !ok {
		writeText(w, http.StatusNotFound, fmt.Sprintf("No emulated instance has the address %s. Start a per-VM metadata server with "+
			"POST /emulator/v1/projects/PROJECT/zones/ZONE/instances/NAME:metadataServer and point GCE_METADATA_HOST at it.\n", host))
		return
	}
	m.serve(w, r, key)
}

func (m *Server) adminStart(w http.ResponseWriter, r *http.Request) {
	name, verb, _ := strings.Cut(r.PathValue("action"), ":")
	m.mu.Lock()
	action, registered := m.actions[verb]
	m.mu.Unlock()
	if verb != "metadataServer" && !registered {
		core.WriteError(w, r, core.GoogleError(http.StatusNotFound, "The emulator does not serve POST %s", r.URL.Path))
		return
	}
	key := instances.InstanceKey(r.PathValue("project"), r.PathValue("zone"), name)
	if _, ok := m.inst.Instance(key); !ok {
		core.WriteError(w, r, core.GoogleNotFound(key))
		return
	}
	if registered {
		action(w, r, key)
		return
	}
	addr, err := m.StartFor(key)
	if err != nil {
		core.WriteError(w, r, core.GoogleError(http.StatusInternalServerError, "%v", err))
		return
	}
	core.WriteJSON(w, http.StatusOK, map[string]string{"host": addr, "instance": key})
}
