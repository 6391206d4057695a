package instances

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Host events: what the host under a VM does to it. A host error moves the VM to a new host and reboots it (or
// stops it without automaticRestart); a maintenance event first posts a notice in the VM's metadata server
// (instance/maintenance-event) and then live-migrates the VM to a new host (MIGRATE) or stops it and restarts it
// on a new host (TERMINATE); a preemption posts instance/preempted=TRUE and then stops (or deletes) a Spot VM.
// A notice in flight is a record in the store (KindHostEvents), so a snapshot keeps it, a reset clears it and
// the metadata server's wait_for_change wakes on it.

// KindHostEvents holds the notice a VM's host has posted, by instance key (HostEvent).
const KindHostEvents = "emulator.hostEvents"

// Values of the metadata server's instance/maintenance-event.
const (
	MaintenanceNone      = "NONE"
	MaintenanceMigrate   = "MIGRATE_ON_HOST_MAINTENANCE"
	MaintenanceTerminate = "TERMINATE_ON_HOST_MAINTENANCE"
)

// HostEvent is a notice posted to one VM. It concerns the boot it was posted in (Boot is the VM's
// lastStartTimestamp then): once the VM has started again it no longer shows.
type HostEvent struct {
	ID               string `json:"id"`
	InstanceID       uint64 `json:"instanceId,string"`
	Boot             string `json:"boot"`
	MaintenanceEvent string `json:"maintenanceEvent,omitempty"`
	Preempted        bool   `json:"preempted,omitempty"`
	NoticeEnds       string `json:"noticeEnds"`
}

// NoticeWindows are how long a VM is warned before its host acts. Defaults are Google's: a maintenance event
// warns GPU VMs one hour and other VMs 60 seconds ahead; a preemption warns 30 seconds ahead. Restart is how long a
// VM stopped for maintenance stays TERMINATED before it restarts on its new host.
type NoticeWindows struct {
	Maintenance    core.Duration `json:"maintenance"`
	MaintenanceGPU core.Duration `json:"maintenanceGpu"`
	Preemption     core.Duration `json:"preemption"`
	Restart        core.Duration `json:"restart"`
}

// DefaultNoticeWindows are Google's documented notice periods.
var DefaultNoticeWindows = NoticeWindows{
	Maintenance:    core.Duration(60 * time.Second),
	MaintenanceGPU: core.Duration(time.Hour),
	Preemption:     core.Duration(30 * time.Second),
	Restart:        core.Duration(time.Second),
}

// hostEvents keeps the notice windows and the timers of notices in flight (outside the store: a timer is not
// state; a notice loaded from a state file gets its timer again from its record).
type hostEvents struct {
	mu      sync.Mutex
	windows NoticeWindows
	timers  map[string]*time.Timer // by event ID
	closed  bool
}

func (s *Service) hostEventsInit() {
	s.events = &hostEvents{windows: DefaultNoticeWindows, timers: map[string]*time.Timer{}}
	s.hostEventRoutes()
	s.OnClose(s.events.stop)
	s.OnReset(func() { s.SetNoticeWindows(DefaultNoticeWindows) })
	s.Store.Watch(s.rearmNotice)
}

// rearmNotice gives a notice that appears in the store without a timer (a state file loaded) the timer of the
// step it is at: the host acts when the notice ends, or at once if that time has passed.
func (s *Service) rearmNotice(c core.Change) {
	if c.Kind != KindHostEvents || c.New == nil {
		return
	}
	var ev HostEvent
	if json.Unmarshal(c.New, &ev) != nil || s.events.armed(ev.ID) {
		return
	}
	inst, ok := s.Instance(c.Key)
	if !ok {
		return
	}
	var then func(key, id string)
	switch st := inst.GetStatus(); {
	case ev.Preempted && st == statusStopping:
		then = s.endPreemption
	case ev.MaintenanceEvent == MaintenanceTerminate && st == statusRunning:
		then = s.stopForMaintenance
	case ev.MaintenanceEvent == MaintenanceTerminate && st == statusTerminated:
		then = s.restartAfterMaintenance
	case ev.MaintenanceEvent == MaintenanceMigrate:
		then = s.migrate
	default:
		return
	}
	at, err := time.Parse(timestampLayout, ev.NoticeEnds)
	if err != nil {
		at = s.Now()
	}
	key, id := c.Key, ev.ID
	s.events.after(id, max(at.Sub(s.Now()), 0), func() { then(key, id) })
}

// SetNoticeWindows replaces the notice windows (zero fields keep theirs).
func (s *Service) SetNoticeWindows(w NoticeWindows) NoticeWindows {
	e := s.events
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, f := range []struct{ dst, src *core.Duration }{
		{&e.windows.Maintenance, &w.Maintenance}, {&e.windows.MaintenanceGPU, &w.MaintenanceGPU},
		{&e.windows.Preemption, &w.Preemption}, {&e.windows.Restart, &w.Restart},
	} {
		if *f.src > 0 {
			*f.dst = *f.src
		}
	}
	return e.windows
}

// NoticeWindowsNow returns the notice windows in force.
func (s *Service) NoticeWindowsNow() NoticeWindows {
	s.events.mu.Lock()
	defer s.events.mu.Unlock()
	return s.events.windows
}

// after runs fn once d has passed, unless the emulator closes first.
func (e *hostEvents) after(id string, d time.Duration, fn func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	if t := e.timers[id]; t != nil {
		t.Stop()
	}
	e.timers[id] = time.AfterFunc(d, func() {
		e.mu.Lock()
		delete(e.timers, id)
		closed := e.closed
		e.mu.Unlock()
		if !closed {
			fn()
		}
	})
}

func (e *hostEvents) armed(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.timers[id] != nil
}

func (e *hostEvents) stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	for id, t := range e.timers {
		t.Stop()
		delete(e.timers, id)
	}
}

// HostNotice is what the VM's metadata server shows: instance/maintenance-event and instance/preempted.
func (s *Service) HostNotice(key string, inst *computepb.Instance) (maintenanceEvent string, preempted bool) {
	var ev HostEvent
	if ok, _ := s.Store.Get(KindHostEvents, key, &ev); !ok || !ev.concerns(inst) {
		return MaintenanceNone, false
	}
	if ev.MaintenanceEvent == "" {
		return MaintenanceNone, ev.Preempted
	}
	return ev.MaintenanceEvent, ev.Preempted
}

func (ev HostEvent) concerns(inst *computepb.Instance) bool {
	return ev.InstanceID == inst.GetId() && ev.Boot == inst.GetLastStartTimestamp()
}

// currentEvent reads the event id still in flight for key, inside tx.
func currentEvent(tx *core.Tx, key, id string) (*HostEvent, bool) {
	var ev HostEvent
	if ok, _ := tx.Get(KindHostEvents, key, &ev); !ok || ev.ID != id {
		return nil, false
	}
	return &ev, true
}

// moveHost gives inst a new physical host in its placement group (the cluster part stays, the block and
// host parts change), as a migration, a repair or a restart after maintenance does.
func (s *Service) moveHost(inst *computepb.Instance) {
	if inst.ResourceStatus == nil {
		inst.ResourceStatus = &computepb.ResourceStatus{}
	}
	old := inst.GetResourceStatus().GetPhysicalHost()
	if old == "" {
		old = physicalHost(inst)
	}
	cluster := "/" + strings.Split(strings.TrimPrefix(old, "/"), "/")[0]
	for {
		h := core.Fingerprint(old + s.Rand.Hex(8))
		if next := fmt.Sprintf("%s/%x/%x", cluster, h[:4], h[4:8]); next != old {
			inst.ResourceStatus.PhysicalHost = proto.String(next)
			return
		}
	}
}

func (s *Service) hostEventRoutes() {
	s.handle("POST "+instancePath+"/{instance}/reportHostAsFaulty", "compute.instances.reportHostAsFaulty", core.Mutating, s.reportHostAsFaulty)
	s.handle("POST "+instancePath+"/{instance}/simulateMaintenanceEvent", "compute.instances.simulateMaintenanceEvent", core.Mutating, s.simulateMaintenanceEvent)
	s.Router.Handle("GET /emulator/v1/noticeWindows", "emulator.noticeWindows.get", core.Admin, func(w http.ResponseWriter, r *http.Request) {
		core.WriteJSON(w, http.StatusOK, s.NoticeWindowsNow())
	})
	s.Router.Handle("POST /emulator/v1/noticeWindows", "emulator.noticeWindows.set", core.Admin, func(w http.ResponseWriter, r *http.Request) {
		var nw NoticeWindows
		if err := core.ReadJSON(r, &nw); err != nil {
			fail(w, r, err)
			return
		}
		core.WriteJSON(w, http.StatusOK, s.SetNoticeWindows(nw))
	})
}
