package trainingcluster

import (
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// model is the resource's Terraform data. Nested blocks stay types.Object so that plan-time code
// can tell null (defaulted) from unknown (another resource's output) from set.
type model struct {
	ID                 types.String   `tfsdk:"id"`
	Name               types.String   `tfsdk:"name"`
	Project            types.String   `tfsdk:"project"`
	Zone               types.String   `tfsdk:"zone"`
	Network            types.String   `tfsdk:"network"`
	Subnet             types.String   `tfsdk:"subnet"`
	Home               types.Object   `tfsdk:"home"`
	Lustre             types.Object   `tfsdk:"lustre"`
	Buckets            types.List     `tfsdk:"buckets"`
	Storage            types.List     `tfsdk:"storage"`
	Controller         types.Object   `tfsdk:"controller"`
	Login              types.Object   `tfsdk:"login"`
	Slurm              types.Object   `tfsdk:"slurm"`
	Accounting         types.Object   `tfsdk:"accounting"`
	Monitoring         types.Object   `tfsdk:"monitoring"`
	OSLogin            types.Bool     `tfsdk:"os_login"`
	ServiceAccount     types.Object   `tfsdk:"service_account"`
	ServiceAccounts    types.Object   `tfsdk:"service_accounts"`
	EnablePublicIPs    types.Bool     `tfsdk:"enable_public_ips"`
	ShieldedVM         types.Bool     `tfsdk:"shielded_vm"`
	Labels             types.Map      `tfsdk:"labels"`
	EffectiveLabels    types.Map      `tfsdk:"effective_labels"`
	DeletionProtection types.Bool     `tfsdk:"deletion_protection"`
	Agent              types.Object   `tfsdk:"agent"`
	LoginPools         types.List     `tfsdk:"login_pools"`
	LoginNodes         types.List     `tfsdk:"login_nodes"`
	SSHCommand         types.String   `tfsdk:"ssh_command"`
	SlurmrestdEndpoint types.String   `tfsdk:"slurmrestd_endpoint"`
	ConfigHash         types.String   `tfsdk:"config_hash"`
	ConfigDrift        types.List     `tfsdk:"config_drift"`
	NodeConfigHash     types.String   `tfsdk:"node_config_hash"`
	Timeouts           timeouts.Value `tfsdk:"timeouts"`
}

type homeModel struct {
	Filestore  types.String `tfsdk:"filestore"`
	NFSSource  types.String `tfsdk:"nfs_source"`
	NFSVersion types.String `tfsdk:"nfs_version"`
	NConnect   types.Int64  `tfsdk:"nconnect"`
}

type lustreModel struct {
	Instance    types.String `tfsdk:"instance"`
	MountSource types.String `tfsdk:"mount_source"`
	MountPath   types.String `tfsdk:"mount_path"`
}

type bucketModel struct {
	Bucket    types.String `tfsdk:"bucket"`
	MountPath types.String `tfsdk:"mount_path"`
	Profile   types.String `tfsdk:"profile"`
	CacheDir  types.String `tfsdk:"cache_dir"`
}

type bootDiskModel struct {
	SizeGB types.Int64  `tfsdk:"size_gb"`
	Type   types.String `tfsdk:"type"`
}

type controllerModel struct {
	MachineType types.String `tfsdk:"machine_type"`
	BootDisk    types.Object `tfsdk:"boot_disk"`
	Image       types.String `tfsdk:"image"`
	Name        types.String `tfsdk:"name"`
	InternalIP  types.String `tfsdk:"internal_ip"`
	SelfLink    types.String `tfsdk:"self_link"`
}

type loginModel struct {
	Count       types.Int64  `tfsdk:"count"`
	MachineType types.String `tfsdk:"machine_type"`
	BootDisk    types.Object `tfsdk:"boot_disk"`
	Image       types.String `tfsdk:"image"`
	// StartupScript runs on each login VM (clusterconfig.Cluster.LoginStartupScript).
	StartupScript types.String `tfsdk:"startup_script"`
	// Zone, Labels, EnablePublicIP and OSLogin default to the cluster's (plan_login.go).
	Zone           types.String `tfsdk:"zone"`
	Labels         types.Map    `tfsdk:"labels"`
	EnablePublicIP types.Bool   `tfsdk:"enable_public_ip"`
	OSLogin        types.Bool   `tfsdk:"os_login"`
}

// loginPoolModel is one of login_pools: a login block with a name.
type loginPoolModel struct {
	Name           types.String `tfsdk:"name"`
	Count          types.Int64  `tfsdk:"count"`
	MachineType    types.String `tfsdk:"machine_type"`
	BootDisk       types.Object `tfsdk:"boot_disk"`
	Image          types.String `tfsdk:"image"`
	StartupScript  types.String `tfsdk:"startup_script"`
	Zone           types.String `tfsdk:"zone"`
	Labels         types.Map    `tfsdk:"labels"`
	EnablePublicIP types.Bool   `tfsdk:"enable_public_ip"`
	OSLogin        types.Bool   `tfsdk:"os_login"`
}

func (p loginPoolModel) login() loginModel {
	return loginModel{Count: p.Count, MachineType: p.MachineType, BootDisk: p.BootDisk, Image: p.Image, StartupScript: p.StartupScript,
		Zone: p.Zone, Labels: p.Labels, EnablePublicIP: p.EnablePublicIP, OSLogin: p.OSLogin}
}

func poolModel(name types.String, l loginModel) loginPoolModel {
	return loginPoolModel{Name: name, Count: l.Count, MachineType: l.MachineType, BootDisk: l.BootDisk, Image: l.Image, StartupScript: l.StartupScript,
		Zone: l.Zone, Labels: l.Labels, EnablePublicIP: l.EnablePublicIP, OSLogin: l.OSLogin}
}

type slurmModel struct {
	ClusterName         types.String `tfsdk:"cluster_name"`
	SchedulerParameters types.List   `tfsdk:"scheduler_parameters"`
	Prolog              types.String `tfsdk:"prolog"`
	Epilog              types.String `tfsdk:"epilog"`
	PrologScripts       types.List   `tfsdk:"prolog_scripts"`
	EpilogScripts       types.List   `tfsdk:"epilog_scripts"`
	Extra               types.Map    `tfsdk:"extra"`
	SuspendTime         types.Int64  `tfsdk:"suspend_time"`
	ResumeTimeout       types.Int64  `tfsdk:"resume_timeout"`
}

type serviceAccountModel struct {
	Email  types.String `tfsdk:"email"`
	Scopes types.List   `tfsdk:"scopes"`
}

// serviceAccountsModel is the identity of each role (service_accounts).
type serviceAccountsModel struct {
	Controller types.Object `tfsdk:"controller"`
	Login      types.Object `tfsdk:"login"`
	Compute    types.Object `tfsdk:"compute"`
}

type agentModel struct {
	URL     types.String `tfsdk:"url"`
	SHA256  types.String `tfsdk:"sha256"`
	Version types.String `tfsdk:"version"`
}

type loginNodeModel struct {
	Name       types.String `tfsdk:"name"`
	InternalIP types.String `tfsdk:"internal_ip"`
	Zone       types.String `tfsdk:"zone"`
}

var (
	bootDiskAttrTypes = map[string]attr.Type{"size_gb": types.Int64Type, "type": types.StringType}
	bootDiskType      = types.ObjectType{AttrTypes: bootDiskAttrTypes}
	homeAttrTypes     = map[string]attr.Type{
		"filestore": types.StringType, "nfs_source": types.StringType, "nfs_version": types.StringType, "nconnect": types.Int64Type,
	}
	lustreAttrTypes = map[string]attr.Type{"instance": types.StringType, "mount_source": types.StringType, "mount_path": types.StringType}
	bucketAttrTypes = map[string]attr.Type{
		"bucket": types.StringType, "mount_path": types.StringType, "profile": types.StringType, "cache_dir": types.StringType,
	}
	controllerAttrTypes = map[string]attr.Type{
		"machine_type": types.StringType, "boot_disk": bootDiskType, "image": types.StringType,
		"name": types.StringType, "internal_ip": types.StringType, "self_link": types.StringType,
	}
	loginAttrTypes = map[string]attr.Type{
		"count": types.Int64Type, "machine_type": types.StringType, "boot_disk": bootDiskType, "image": types.StringType,
		"startup_script": types.StringType, "zone": types.StringType, "labels": types.MapType{ElemType: types.StringType},
		"enable_public_ip": types.BoolType, "os_login": types.BoolType,
	}
	loginPoolAttrTypes = withAttr(loginAttrTypes, "name", types.StringType)
	loginPoolType      = types.ObjectType{AttrTypes: loginPoolAttrTypes}
	slurmAttrTypes     = map[string]attr.Type{
		"cluster_name": types.StringType, "scheduler_parameters": types.ListType{ElemType: types.StringType},
		"prolog": types.StringType, "epilog": types.StringType, "extra": types.MapType{ElemType: types.StringType},
		"prolog_scripts": types.ListType{ElemType: types.StringType}, "epilog_scripts": types.ListType{ElemType: types.StringType},
		"suspend_time": types.Int64Type, "resume_timeout": types.Int64Type,
	}
	serviceAccountAttrTypes  = map[string]attr.Type{"email": types.StringType, "scopes": types.ListType{ElemType: types.StringType}}
	serviceAccountType       = types.ObjectType{AttrTypes: serviceAccountAttrTypes}
	serviceAccountsAttrTypes = map[string]attr.Type{"controller": serviceAccountType, "login": serviceAccountType, "compute": serviceAccountType}
	agentAttrTypes           = map[string]attr.Type{"url": types.StringType, "sha256": types.StringType, "version": types.StringType}
	loginNodeAttrTypes       = map[string]attr.Type{"name": types.StringType, "internal_ip": types.StringType, "zone": types.StringType}
	loginNodeType            = types.ObjectType{AttrTypes: loginNodeAttrTypes}
)

func withAttr(m map[string]attr.Type, k string, t attr.Type) map[string]attr.Type {
	out := map[string]attr.Type{k: t}
	for kk, v := range m {
		out[kk] = v
	}
	return out
}
