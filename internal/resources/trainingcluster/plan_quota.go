package trainingcluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// checkQuota checks at plan, with one read-only call (regions.get), that the region's quota holds
// the VMs this plan creates: the controller (on create or replacement) and the login VMs added.
// The need joins the plan-time sum of the operation (providerdata.PlannedQuota), so the
// partitions planned after the cluster count the controller too. Unknown values skip the check;
// a failed read is a warning (nothing is refused on a guess). It runs after every input check.
func (p *planner) checkQuota(ctx context.Context, replacing bool) {
	r := p.r.Provider
	if r == nil || r.Clients == nil || !known(p.plan.Name) || !known(p.plan.Zone) || !known(p.plan.Project) || p.region == "" {
		return
	}
	need := map[string]float64{}
	var what []string
	add := func(machineType string, n int, desc string) bool {
		m, ok := catalog.Machine(machineType)
		if !ok {
			return false
		}
		for k, v := range m.QuotaMetrics() {
			need[k] += v * float64(n)
		}
		what = append(what, desc)
		return true
	}
	creating := !p.hasState || replacing
	if c, ok := readObject[controllerModel](ctx, p.plan.Controller, p.diags); ok && creating {
		if !known(c.MachineType) || !add(c.MachineType.ValueString(), 1, "the controller ("+c.MachineType.ValueString()+")") {
			return
		}
	}
	if l, ok := readObject[loginModel](ctx, p.plan.Login, p.diags); ok {
		if !known(l.Count) || !known(l.MachineType) {
			return
		}
		n := int(l.Count.ValueInt64())
		if !creating {
			// In place: login VMs of the same machine type are added or removed; a new machine
			// type recreates them one by one, each VM's quota freed before the next is made.
			if s, ok := readObject[loginModel](ctx, p.state.Login, p.diags); ok && known(s.Count) && s.MachineType.Equal(l.MachineType) {
				n -= int(s.Count.ValueInt64())
			} else {
				n = 0
			}
		}
		if n > 0 && !add(l.MachineType.ValueString(), n, loginVMs(n, l.MachineType.ValueString())) {
			return
		}
	}
	// Login pools count the same way, each against the state's pool of its name.
	var pools, statePools []loginPoolModel
	if !known(p.plan.LoginPools) {
		return
	}
	p.diags.Append(p.plan.LoginPools.ElementsAs(ctx, &pools, false)...)
	if !creating && known(p.state.LoginPools) {
		p.diags.Append(p.state.LoginPools.ElementsAs(ctx, &statePools, false)...)
	}
	for _, pl := range pools {
		if !known(pl.Count) || !known(pl.MachineType) {
			return
		}
		n := int(pl.Count.ValueInt64())
		for _, st := range statePools {
			if st.Name.Equal(pl.Name) {
				n = 0
				if st.MachineType.Equal(pl.MachineType) && known(st.Count) {
					n = int(pl.Count.ValueInt64() - st.Count.ValueInt64())
				}
			}
		}
		if n > 0 && !add(pl.MachineType.ValueString(), n, loginVMs(n, pl.MachineType.ValueString())+" in login pool "+pl.Name.ValueString()) {
			return
		}
	}
	if len(need) == 0 {
		return
	}
	name := p.plan.Name.ValueString()
	q := providerdata.QuotaNeed{Project: p.project, Region: p.region, What: "cluster " + name, Metrics: maps.Clone(need)}
	others := r.Quota.Plan(clusterID(p.project, p.zone, name), q)
	short, err := tfutil.QuotaShortfalls(ctx, r, q, others)
	switch {
	case err != nil && !errors.Is(err, context.Canceled):
		p.diags.AddWarning("Quota not checked at plan", err.Error()+"; the VMs' creation reports a shortfall.")
	case len(short) > 0:
		p.diags.AddAttributeError(path.Root("controller").AtName("machine_type"), "The cluster's VMs do not fit",
			fmt.Sprintf("Found at plan, before anything is created: regional quota in %s does not cover %s: %s. Request more quota for the region, or choose smaller machine types.",
				p.region, strings.Join(what, " and "), strings.Join(short, "; ")))
	}
}

func loginVMs(n int, machineType string) string {
	if n == 1 {
		return "1 login VM (" + machineType + ")"
	}
	return fmt.Sprintf("%d login VMs (%s)", n, machineType)
}
