package instances

import (
	"fmt"
	"net/http"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Capacity is the "stockout after N VMs" fault: Zone has room for VMs more VMs of MachineType ("" or "*": of any
// type). Each VM created takes one; each VM deleted gives one back; at 0 creation fails with
// ZONE_RESOURCE_POOL_EXHAUSTED, so a bulkInsert of more VMs succeeds partially (or rolls back below minCount).
// The ledger lives in the store, so a failed operation's takes are undone with it and a reset clears it.
type Capacity struct {
	Zone        string `json:"zone"`
	MachineType string `json:"machineType,omitempty"`
	VMs         int    `json:"vms"`
}

func capacityKey(zone, machineType string) string {
	if machineType == "" {
		machineType = "*"
	}
	return zone + "/" + machineType
}

// SetCapacity sets (vms >= 0) or removes (vms < 0) the capacity of zone for machineType ("" for every type).
func (s *Service) SetCapacity(zone, machineType string, vms int) {
	key := capacityKey(zone, machineType)
	if vms < 0 {
		s.Store.Delete(KindCapacity, key)
		return
	}
	if machineType == "*" {
		machineType = ""
	}
	_ = s.Store.Put(KindCapacity, key, Capacity{Zone: zone, MachineType: machineType, VMs: vms})
}

// Capacities lists the capacity entries.
func (s *Service) Capacities() []Capacity {
	out := []Capacity{}
	for _, rec := range s.Store.List(KindCapacity, "") {
		var c Capacity
		if rec.Decode(&c) == nil {
			out = append(out, c)
		}
	}
	return out
}

// takeCapacity takes one slot of the most specific ledger entry for zone/machineType. It returns the entry's key
// ("" when no entry limits this VM) or the stockout error.
func (s *Service) takeCapacity(tx *core.Tx, project, zone, machineType string) (string, error) {
	for _, key := range []string{capacityKey(zone, machineType), capacityKey(zone, "")} {
		var c Capacity
		if ok, _ := tx.Get(KindCapacity, key, &c); !ok {
			continue
		}
		if c.VMs <= 0 {
			return "", core.ZoneResourcePoolExhausted(project, zone)
		}
		c.VMs--
		return key, tx.Put(KindCapacity, key, c)
	}
	return "", nil
}

func (s *Service) returnCapacity(tx *core.Tx, key string) error {
	var c Capacity
	if ok, _ := tx.Get(KindCapacity, key, &c); !ok {
		return nil
	}
	c.VMs++
	return tx.Put(KindCapacity, key, c)
}

// Charge records what a provisioned VM holds, so deleting it gives back exactly that.
type Charge struct {
	Region      string             `json:"region"`
	Amounts     map[string]float64 `json:"amounts"`
	Reservation string             `json:"reservation,omitempty"`
	Capacity    string             `json:"capacity,omitempty"`
}

func interruptible(inst *computepb.Instance) bool {
	sc := inst.GetScheduling()
	m := sc.GetProvisioningModel()
	return m == modelSpot || m == modelFlexStart || sc.GetPreemptible()
}

// stockedOut reports whether the stockout fault covers the VM's zone and machine type.
func (s *Service) stockedOut(zone, machineType string) bool {
	return s.Faults.Stockout(zone, machineType)
}

// acquire provisions what a VM needs, inside tx: zone capacity (stockout faults and the capacity ledger), a
// reservation per its affinity, and regional quota. Any failure is the operation error to report; the caller
// rolls tx back to before the call.
func (s *Service) acquire(tx *core.Tx, key string, inst *computepb.Instance) error {
	project, zone, _, _ := ParseInstanceKey(key)
	name, _ := machineTypeName(inst.GetMachineType())
	mt, ok := catalog.Machine(name)
	if !ok {
		return core.NewOpError(400, "INVALID_FIELD_VALUE", fmt.Sprintf("Machine type with name '%s' does not exist in zone '%s'.", name, zone))
	}
	region, _ := catalog.RegionOf(zone)
	if s.stockedOut(zone, name) {
		return core.ZoneResourcePoolExhausted(project, zone)
	}
	capKey, err := s.takeCapacity(tx, project, zone, name)
	if err != nil {
		return err
	}
	resKey, block, err := s.consumeReservation(tx, project, zone, name, inst)
	if err != nil {
		return err
	}
	amounts := mt.QuotaMetrics()
	switch {
	case resKey != "":
		// The reservation already holds the CPUs and GPUs in quota; only the instance itself counts.
		amounts = map[string]float64{catalog.QuotaInstances: 1}
	case interruptible(inst):
		amounts = mt.SpotQuotaMetrics()
	}
	if err := s.Quotas.ChargeTx(tx, region, amounts); err != nil {
		return err
	}
	if resKey != "" {
		if inst.ResourceStatus == nil {
			inst.ResourceStatus = &computepb.ResourceStatus{}
		}
		info := &computepb.ResourceStatusReservationConsumptionInfo{ConsumedReservation: proto.String(core.SelfLink(resKey))}
		if block != "" {
			info.ConsumedReservationBlock = proto.String(core.SelfLink(resKey + "/reservationBlocks/" + block))
		}
		inst.ResourceStatus.ReservationConsumptionInfo = info
	}
	return tx.Put(KindCharges, key, Charge{Region: region, Amounts: amounts, Reservation: resKey, Capacity: capKey})
}

// releaseCharge gives back what acquire took for the VM at key (nothing if it never got that far).
func (s *Service) releaseCharge(tx *core.Tx, key string) error {
	var ch Charge
	if ok, _ := tx.Get(KindCharges, key, &ch); !ok {
		return nil
	}
	if err := s.Quotas.ReleaseTx(tx, ch.Region, ch.Amounts); err != nil {
		return err
	}
	if ch.Reservation != "" {
		if err := s.releaseReservation(tx, ch.Reservation); err != nil {
			return err
		}
	}
	if ch.Capacity != "" {
		if err := s.returnCapacity(tx, ch.Capacity); err != nil {
			return err
		}
	}
	tx.Delete(KindCharges, key)
	return nil
}

func (s *Service) adminRoutes() {
	s.Router.Handle("GET /emulator/v1/capacity", "emulator.capacity.list", core.Admin, func(w http.ResponseWriter, r *http.Request) {
		core.WriteJSON(w, http.StatusOK, map[string]any{"capacity": s.Capacities()})
	})
	s.Router.Handle("POST /emulator/v1/capacity", "emulator.capacity.set", core.Admin, func(w http.ResponseWriter, r *http.Request) {
		var c Capacity
		if err := core.ReadJSON(r, &c); err != nil {
			fail(w, r, err)
			return
		}
		if _, ok := catalog.Zone(c.Zone); !ok {
			fail(w, r, core.GoogleError(http.StatusBadRequest, "capacity: unknown zone %q", c.Zone))
			return
		}
		if c.MachineType != "" && c.MachineType != "*" {
			if _, ok := catalog.Machine(c.MachineType); !ok {
				fail(w, r, core.GoogleError(http.StatusBadRequest, "capacity: unknown machine type %q", c.MachineType))
				return
			}
		}
		s.SetCapacity(c.Zone, c.MachineType, c.VMs)
		s.ProvisionPending()
		core.WriteJSON(w, http.StatusOK, map[string]any{"capacity": s.Capacities()})
	})
	s.Router.Handle("POST /emulator/v1/flexStart:provision", "emulator.flexStart.provision", core.Admin, func(w http.ResponseWriter, r *http.Request) {
		core.WriteJSON(w, http.StatusOK, map[string]any{"provisioned": s.ProvisionPending()})
	})
}
