package instances

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	vmruntime "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/runtime"
)

// Runtime boots emulated VMs as local hosts. *vmruntime.Runtime implements it. Host IDs are instance keys.
type Runtime interface {
	Boot(ctx context.Context, spec vmruntime.HostSpec) error
	Reset(id string) error
	Stop(id string) error
	Start(id string) error
	Delete(id string) error
	SerialOutput(id string, start int64) (string, int64, error)
}

// MetadataServers opens a dedicated metadata listener for one VM (*metadata.Server implements it); a booted
// host reaches its listener at 169.254.169.254.
type MetadataServers interface {
	StartFor(instanceKey string) (hostport string, err error)
}

// SetRuntime attaches a local runtime (nil detaches it: API-only mode). VMs already RUNNING (e.g. loaded from a
// state file) are booted at once; from then on the runtime follows every VM's lifecycle.
func (s *Service) SetRuntime(rt Runtime) {
	s.hookMu.Lock()
	s.rt = rt
	if rt != nil && s.worker == nil {
		s.worker = newRuntimeWorker(s)
	}
	wk := s.worker
	s.hookMu.Unlock()
	if rt == nil {
		return
	}
	for _, rec := range s.Store.List(KindInstances, "") {
		if p, ok := probe(rec.JSON); ok && p.Status == statusRunning && !wk.isBooted(rec.Key) {
			wk.enqueue(rec.Key, actBoot)
		}
	}
}

// SetMetadataServers attaches the per-VM metadata listeners booted hosts use.
func (s *Service) SetMetadataServers(m MetadataServers) {
	s.hookMu.Lock()
	s.md = m
	s.hookMu.Unlock()
}

func (s *Service) hooks() (Runtime, MetadataServers, *runtimeWorker) {
	s.hookMu.Lock()
	defer s.hookMu.Unlock()
	return s.rt, s.md, s.worker
}

type rtAction int

const (
	actBoot rtAction = iota
	actStart
	actStop
	actReset
	actDelete
)

func (a rtAction) String() string {
	return [...]string{"boot", "start", "stop", "reset", "delete"}[a]
}

// runtimeWorker applies lifecycle changes to the runtime outside store transactions (booting takes seconds and
// must not hold the store lock). Actions of one VM run in order; different VMs run in parallel, a few at a time.
// A goroutine exists only while a VM has queued actions.
type runtimeWorker struct {
	s      *Service
	mu     sync.Mutex
	queues map[string][]rtAction
	busy   map[string]bool
	booted map[string]bool
	sem    chan struct{}
	wg     sync.WaitGroup
	closed bool
}

func newRuntimeWorker(s *Service) *runtimeWorker {
	return &runtimeWorker{s: s, queues: map[string][]rtAction{}, busy: map[string]bool{}, booted: map[string]bool{}, sem: make(chan struct{}, 4)}
}

func (w *runtimeWorker) enqueue(key string, a rtAction) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.queues[key] = append(w.queues[key], a)
	if !w.busy[key] {
		w.busy[key] = true
		w.wg.Add(1)
		go w.drain(key)
	}
}

func (w *runtimeWorker) drain(key string) {
	defer w.wg.Done()
	for {
		w.mu.Lock()
		q := w.queues[key]
		if len(q) == 0 {
			delete(w.queues, key)
			delete(w.busy, key)
			w.mu.Unlock()
			return
		}
		a := q[0]
		w.queues[key] = q[1:]
		w.mu.Unlock()
		w.sem <- struct{}{}
		err := w.apply(key, a)
		<-w.sem
		if err != nil {
			w.s.Log.Error("runtime action failed", "instance", key, "action", a.String(), "err", err)
			w.s.serial.appendLine(key, w.s.Now(), "hypercompute-emulator: runtime "+a.String()+" failed: "+err.Error())
		}
	}
}

func (w *runtimeWorker) isBooted(key string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.booted[key]
}

func (w *runtimeWorker) setBooted(key string, v bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if v {
		w.booted[key] = true
	} else {
		delete(w.booted, key)
	}
}

func (w *runtimeWorker) apply(key string, a rtAction) error {
	rt, md, _ := w.s.hooks()
	if rt == nil {
		return nil
	}
	switch a {
	case actBoot, actStart:
		if w.isBooted(key) {
			return rt.Start(key)
		}
		inst, ok := w.s.Instance(key)
		if !ok {
			return nil // deleted before its boot came up
		}
		spec, err := w.s.hostSpec(key, inst)
		if err != nil {
			return err
		}
		if md != nil {
			addr, err := md.StartFor(key)
			if err != nil {
				return err
			}
			spec.MetadataAddr = addr
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := rt.Boot(ctx, spec); err != nil {
			return err
		}
		w.setBooted(key, true)
	case actStop:
		if w.isBooted(key) {
			return rt.Stop(key)
		}
	case actReset:
		if w.isBooted(key) {
			return rt.Reset(key)
		}
	case actDelete:
		if w.isBooted(key) {
			w.setBooted(key, false)
			return rt.Delete(key)
		}
	}
	return nil
}

// close waits for queued actions (the runtime itself deletes its hosts when it closes).
func (w *runtimeWorker) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.wg.Wait()
}

// hostSpec describes an instance to the runtime: its primary interface's VPC, address and MTU, and the startup
// script from instance (or project) metadata.
func (s *Service) hostSpec(key string, inst *computepb.Instance) (vmruntime.HostSpec, error) {
	project, zone, name, _ := ParseInstanceKey(key)
	spec := vmruntime.HostSpec{ID: key, Name: name, Project: project, Zone: zone}
	if len(inst.GetNetworkInterfaces()) == 0 {
		return spec, errors.New("instance has no network interface")
	}
	nic := inst.GetNetworkInterfaces()[0]
	spec.Network = core.RelativePath(nic.GetNetwork())
	spec.IP = nic.GetNetworkIP()
	var sub computepb.Subnetwork
	if ok, _ := s.Store.Get(compute.KindSubnetworks, core.RelativePath(nic.GetSubnetwork()), &sub); ok {
		if p, err := netip.ParsePrefix(sub.GetIpCidrRange()); err == nil {
			spec.PrefixLen = p.Bits()
		}
	}
	var net computepb.Network
	if ok, _ := s.Store.Get(compute.KindNetworks, spec.Network, &net); ok && net.GetMtu() > 0 {
		spec.MTU = int(net.GetMtu())
	}
	spec.StartupScript = metadataValue(inst.GetMetadata(), "startup-script")
	if spec.StartupScript == "" {
		spec.StartupScript = metadataValue(s.projectMetadata(project), "startup-script")
	}
	return spec, nil
}

func metadataValue(md *computepb.Metadata, key string) string {
	for _, it := range md.GetItems() {
		if it.GetKey() == key {
			return it.GetValue()
		}
	}
	return ""
}

// KindProjects is where the compute package keeps project resources (commonInstanceMetadata), key "projects/P".
const KindProjects = compute.KindProjects

// projectMetadata returns the project's commonInstanceMetadata, if the project resource exists.
func (s *Service) projectMetadata(project string) *computepb.Metadata {
	var p computepb.Project
	if ok, _ := s.Store.Get(KindProjects, "projects/"+project, &p); ok {
		return p.GetCommonInstanceMetadata()
	}
	return nil
}
