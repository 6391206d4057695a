package trainingcluster

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

func (p *planner) planSlurm() {
	ctx := context.Background()
	s := slurmModel{
		SchedulerParameters: types.ListNull(types.StringType), Extra: types.MapNull(types.StringType),
	}
	if known(p.plan.Slurm) {
		p.diags.Append(p.plan.Slurm.As(ctx, &s, tfutil.ObjectOpts)...)
	}
	if known(s.Extra) && fullyKnown(s.Extra) {
		if err := clusterconfig.ValidateExtraSlurmSettings(stringMap(ctx, s.Extra, p.diags)); err != nil {
			p.invalid("slurm.extra", "%v", err)
		}
	}
	for _, sc := range []struct {
		attr string
		v    types.String
	}{{"slurm.prolog", s.Prolog}, {"slurm.epilog", s.Epilog}} {
		if known(sc.v) && !strings.HasPrefix(sc.v.ValueString(), "#!") {
			p.invalid(sc.attr, "the script must start with an interpreter line such as #!/bin/bash: slurmd executes it directly")
		}
	}
	for _, l := range []struct {
		attr, single string
		v            types.List
		one          types.String
	}{{"slurm.prolog_scripts", "slurm.prolog", s.PrologScripts, s.Prolog}, {"slurm.epilog_scripts", "slurm.epilog", s.EpilogScripts, s.Epilog}} {
		if !known(l.v) {
			continue
		}
		list := stringList(ctx, l.v, p.diags)
		if len(list) > 0 && known(l.one) && l.one.ValueString() != "" {
			p.invalid(l.attr, "set either %s (one script) or %s (an ordered list), not both", l.single, l.attr)
		}
		if len(list) > clusterconfig.MaxScripts {
			p.invalid(l.attr, "%d scripts, at most %d", len(list), clusterconfig.MaxScripts)
		}
		for i, body := range list {
			if !strings.HasPrefix(body, "#!") {
				tfutil.AddInvalid(p.diags, tfutil.AttrPath(l.attr).AtListIndex(i), "the script must start with an interpreter line such as #!/bin/bash: slurmd executes it directly")
			}
		}
	}
	if known(s.SchedulerParameters) {
		for _, item := range stringList(ctx, s.SchedulerParameters, p.diags) {
			if item == "" || strings.ContainsAny(item, ", \t\n\r#\"") {
				p.invalid("slurm.scheduler_parameters", "%q is invalid: give one option per entry, without spaces, commas, quotes or \"#\"", item)
			}
		}
	}
	if known(p.plan.Name) {
		s.ClusterName = p.plan.Name
	} else {
		s.ClusterName = types.StringUnknown()
	}
	var d diag.Diagnostics
	p.plan.Slurm, d = types.ObjectValueFrom(ctx, slurmAttrTypes, s)
	p.diags.Append(d...)
}
