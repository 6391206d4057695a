package trainingcluster

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

func (p *planner) machineInZone(attrPath string, v types.String, zoneKnown bool) {
	if !known(v) {
		return
	}
	var err error
	if zoneKnown {
		err = catalog.ValidateMachineInZone(v.ValueString(), p.zone)
	} else {
		err = catalog.ValidateMachineType(v.ValueString())
	}
	if err != nil {
		p.invalid(attrPath, "%v", err)
		return
	}
	if m, _ := catalog.Machine(v.ValueString()); m.HasGPU() || m.Arch != catalog.ArchX86 {
		p.invalid(attrPath, "%s is a GPU or Arm machine type; the controller and login VMs are x86_64 CPU VMs (GPUs belong in a hypercompute_node_partition)", v.ValueString())
	}
}

func (p *planner) planController(zoneKnown bool) {
	plan := p.plan
	c := controllerModel{
		MachineType: types.StringValue(defaultControllerMachine), BootDisk: bootDiskDefault(), Image: types.StringValue(defaultImage),
	}
	if known(plan.Controller) {
		p.diags.Append(plan.Controller.As(context.Background(), &c, tfutil.ObjectOpts)...)
	}
	p.machineInZone("controller.machine_type", c.MachineType, zoneKnown)
	if known(plan.Name) {
		c.Name = types.StringValue(clusterconfig.ControllerName(plan.Name.ValueString()))
		if known(plan.Project) && known(plan.Zone) {
			c.SelfLink = types.StringValue(fmt.Sprintf("%sprojects/%s/zones/%s/instances/%s", tfutil.ComputeV1, p.project, p.zone, c.Name.ValueString()))
		} else {
			c.SelfLink = types.StringUnknown()
		}
	} else {
		c.Name, c.SelfLink = types.StringUnknown(), types.StringUnknown()
	}
	c.InternalIP = types.StringUnknown()
	var d diag.Diagnostics
	plan.Controller, d = types.ObjectValueFrom(context.Background(), controllerAttrTypes, c)
	p.diags.Append(d...)
}
