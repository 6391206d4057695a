package trainingcluster

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// loginAttributes are the options of a group of login VMs: the login block and each login pool.
func loginAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"count": schema.Int64Attribute{
			Optional: true, Computed: true, Default: int64default.StaticInt64(defaultLoginCount),
			MarkdownDescription: fmt.Sprintf("Number of login VMs, 0-%d. Default %d.", clusterconfig.MaxLoginNodes, defaultLoginCount),
			Validators:          []validator.Int64{int64validator.Between(0, clusterconfig.MaxLoginNodes)},
		},
		"machine_type": schema.StringAttribute{
			Optional: true, Computed: true, Default: stringdefault.StaticString(defaultLoginMachine),
			MarkdownDescription: "Machine type, offered in the login VMs' zone. Default `" + defaultLoginMachine + "`.",
		},
		"boot_disk": bootDiskAttribute(false),
		"image": schema.StringAttribute{
			Optional: true, Computed: true, Default: stringdefault.StaticString(defaultImage),
			MarkdownDescription: "Boot image or image family. Default `" + defaultImage + "`.",
		},
		"startup_script": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "A script (starting with `#!`) each login VM runs once per boot, after its own bootstrap (mounts, munge, Slurm's configuration). " +
				"Its output is in the serial console (lines starting `startup-script:`); a failure fails the apply with its exit code and last output. A change runs the new script on the running VMs.",
			Validators: []validator.String{tfutil.StringCheck{Desc: "a script starting with #!", Check: clusterconfig.ValidateStartupScript}},
		},
		"zone": schema.StringAttribute{
			Optional: true, Computed: true,
			MarkdownDescription: "Zone of the login VMs, a zone of the cluster's region (they use the cluster's regional subnet). Default: the cluster's `zone`. " +
				"A change recreates the login VMs in the new zone one by one; the controller is untouched.",
			Validators: []validator.String{tfutil.StringCheck{Desc: "a known zone", Check: catalog.ValidateZone}},
		},
		"labels": tfutil.OptionalMap(schema.MapAttribute{
			ElementType: types.StringType,
			MarkdownDescription: "Labels of the login VMs only, merged over the cluster's `labels` (a key set here wins). " +
				"A change is applied in place (`setLabels`).",
			Validators: []validator.Map{tfutil.LabelsValidator(), loginLabelsValidator{}},
		}),
		"enable_public_ip": schema.BoolAttribute{
			Optional: true, Computed: true,
			MarkdownDescription: "Give the login VMs an external IP (users then reach them without IAP). Default: the cluster's `enable_public_ips`; " +
				"the common case is `true` here with the cluster's `false`, so that only login VMs face the internet. A change is applied in place (an access config added or removed).",
		},
		"os_login": schema.BoolAttribute{
			Optional: true, Computed: true,
			MarkdownDescription: "OS Login (IAM) on the login VMs. Default: the cluster's `os_login`. A change is applied in place (the VMs' `enable-oslogin` metadata).",
		},
	}
}

// maxLoginPools bounds login_pools.
const maxLoginPools = 8

func loginPoolAttributes() map[string]schema.Attribute {
	a := loginAttributes()
	a["name"] = schema.StringAttribute{
		Required: true,
		MarkdownDescription: fmt.Sprintf("Pool name, unique in the cluster: 1-%d lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen; "+
			"the VMs are `<name>-login-<pool>-<i>`. Changing it replaces the pool's VMs.", maxLoginPoolNameLength),
		Validators: []validator.String{tfutil.StringCheck{Desc: "a login pool name", Check: validateLoginPoolName}},
	}
	return a
}
