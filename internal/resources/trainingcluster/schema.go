package trainingcluster

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Defaults of the cluster's own VMs. slurmctld of a cluster of a few thousand nodes is comfortable
// on 8 vCPUs and 32 GB; a login VM only runs shells, editors and sbatch.
const (
	defaultControllerMachine = "n2-standard-8"
	defaultLoginMachine      = "n2-standard-4"
	defaultLoginCount        = 1
	defaultBootDiskGB        = 50
	defaultBootDiskType      = "pd-balanced"
	// defaultImage is the image family the agent and Debian's Slurm packages are built for.
	defaultImage = "projects/debian-cloud/global/images/family/debian-12"
)

// The OAuth scopes of the roles' defaults (Google's scope list: developers.google.com/identity/protocols/oauth2/scopes).
const (
	scopeCompute          = "https://www.googleapis.com/auth/compute"
	scopeCloudPlatform    = "https://www.googleapis.com/auth/cloud-platform"
	scopeStorageReadOnly  = "https://www.googleapis.com/auth/devstorage.read_only"
	scopeStorageReadWrite = "https://www.googleapis.com/auth/devstorage.read_write"
	scopeLoggingWrite     = "https://www.googleapis.com/auth/logging.write"
	scopeMonitoringWrite  = "https://www.googleapis.com/auth/monitoring.write"
)

// roleDefaultScopes are the least each role needs. Guest attributes and the VM's own metadata are read and
// written through the metadata server, which takes no scope.
//   - controller: compute (power saving and repairs create, reset, delete nodes; reads templates and VMs),
//     devstorage.read_only (fetching the agent, bucket mounts), logging.write and monitoring.write.
//   - compute: devstorage.read_write (gcsfuse bucket mounts and checkpoints written there),
//     logging.write and monitoring.write; no Compute: a job's user cannot touch the cluster's VMs.
//   - login: devstorage.read_only (the agent, reading bucket mounts), logging.write and monitoring.write;
//     no Compute and no storage writes, since every user of the cluster can log in there.
var roleDefaultScopes = map[clusterconfig.Role][]string{
	clusterconfig.RoleController: {scopeCompute, scopeStorageReadOnly, scopeLoggingWrite, scopeMonitoringWrite},
	clusterconfig.RoleCompute:    {scopeStorageReadWrite, scopeLoggingWrite, scopeMonitoringWrite},
	clusterconfig.RoleLogin:      {scopeStorageReadOnly, scopeLoggingWrite, scopeMonitoringWrite},
}

var bootDisks = []string{"pd-standard", "pd-balanced", "pd-ssd", "hyperdisk-balanced"}

func bootDiskDefault() types.Object {
	return types.ObjectValueMust(bootDiskAttrTypes, map[string]attr.Value{
		"size_gb": types.Int64Value(defaultBootDiskGB), "type": types.StringValue(defaultBootDiskType),
	})
}

func bootDiskAttribute(replace bool) schema.SingleNestedAttribute {
	a := schema.SingleNestedAttribute{
		Optional: true, Computed: true,
		Default:             objectdefault.StaticValue(bootDiskDefault()),
		MarkdownDescription: fmt.Sprintf("Boot disk. Default %d GB `%s`.", defaultBootDiskGB, defaultBootDiskType),
		Attributes: map[string]schema.Attribute{
			"size_gb": schema.Int64Attribute{
				Optional: true, Computed: true, Default: int64default.StaticInt64(defaultBootDiskGB),
				MarkdownDescription: fmt.Sprintf("Size in GB, 20-65536. Default %d.", defaultBootDiskGB),
				Validators:          []validator.Int64{int64validator.Between(20, 65536)},
			},
			"type": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(defaultBootDiskType),
				MarkdownDescription: "Disk type: `pd-standard`, `pd-balanced`, `pd-ssd` or `hyperdisk-balanced`. Default `" + defaultBootDiskType + "`.",
				Validators:          []validator.String{stringvalidator.OneOf(bootDisks...)},
			},
		},
	}
	if replace {
		a.MarkdownDescription += " Changing it replaces the controller (and with it the cluster's running jobs)."
	}
	return a
}

func loginDefault() types.Object {
	return types.ObjectValueMust(loginAttrTypes, map[string]attr.Value{
		"count": types.Int64Value(defaultLoginCount), "machine_type": types.StringValue(defaultLoginMachine),
		"boot_disk": bootDiskDefault(), "image": types.StringValue(defaultImage), "startup_script": types.StringNull(),
		// Filled from the cluster's zone, public IPs and OS Login at plan (plan_login.go).
		"zone": types.StringUnknown(), "labels": tfutil.EmptyMap(types.StringType),
		"enable_public_ip": types.BoolUnknown(), "os_login": types.BoolUnknown(),
	})
}

func slurmDefault() types.Object {
	return types.ObjectValueMust(slurmAttrTypes, map[string]attr.Value{
		// Empty, not null: defaults inside a defaulted object do not apply, and Read returns them empty.
		"cluster_name": types.StringNull(), "scheduler_parameters": tfutil.EmptyList(types.StringType),
		"prolog": types.StringNull(), "epilog": types.StringNull(), "extra": tfutil.EmptyMap(types.StringType),
		"prolog_scripts": tfutil.EmptyList(types.StringType), "epilog_scripts": tfutil.EmptyList(types.StringType),
		"suspend_time": types.Int64Null(), "resume_timeout": types.Int64Null(),
	})
}

func (r *clusterResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	computedString := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Slurm training cluster's control plane: the controller VM (slurmctld, slurmrestd and the node agent) " +
			"and the login VMs, with `/home` on Filestore or NFS, optional Managed Lustre and Cloud Storage mounts, and the cluster's " +
			"Slurm settings. Every VM gets a small launcher and a node config in its metadata; the agent on each VM mounts the storage, " +
			"configures Slurm and reports through guest attributes, and an apply ends only once the controller reports the " +
			"configuration applied — or fails with the node's own error text. Slurm settings and the login count change in place. " +
			"Partitions are separate `hypercompute_node_partition` resources; Filestore and Lustre are never touched by this resource.",
		Attributes: map[string]schema.Attribute{
			"id": tfutil.IDAttribute("`projects/{project}/zones/{zone}/clusters/{name}`."),
			"name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: fmt.Sprintf("Cluster name: Slurm's `ClusterName` and the prefix of every VM (`<name>-controller`, `<name>-login-<i>`, "+
					"`<name>-<partition>-<i>`). 1-%d lowercase letters, digits and hyphens, starting with a letter. Changing it replaces the cluster.", clusterconfig.MaxClusterNameLength),
				Validators: []validator.String{tfutil.StringCheck{Desc: "a cluster name", Check: clusterconfig.ValidateClusterName}},
			},
			"project": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Project ID. Defaults to the provider's `project`. Changing it replaces the cluster.",
			},
			"zone": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Zone of the controller and login VMs (and of zonal storage). Defaults to the provider's `zone`. Changing it replaces the cluster.",
				Validators:          []validator.String{tfutil.StringCheck{Desc: "a known zone", Check: catalog.ValidateZone}},
			},
			"network": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "The cluster's VPC: a `hypercompute_network`'s `name`, `id` or `self_link`. Changing it replaces the cluster.",
				Validators:          []validator.String{tfutil.NetworkValidator()},
			},
			"subnet": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Self link (or `projects/{project}/regions/{region}/subnetworks/{name}`) of the subnet the VMs use. Defaults to `<network>-subnet` in the zone's region, the subnet `hypercompute_network` creates. Changing it replaces the cluster.",
				Validators:          []validator.String{subnetValidator()},
			},
			"home": schema.SingleNestedAttribute{
				Required:            true,
				MarkdownDescription: "The NFS share every VM mounts at `/home` (users' homes, and the cluster's shared state in `/home/.hypercompute`). Set exactly one of `filestore` and `nfs_source`.",
				Attributes: map[string]schema.Attribute{
					"filestore": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "A `hypercompute_filestore`'s `id` (`projects/{project}/locations/{location}/instances/{name}`); its IP, share and protocol are read at apply. It must be in the cluster's zone (or region, for regional tiers) and network.",
					},
					"nfs_source": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "An existing NFS export, `IP:/path` (e.g. `10.0.0.2:/home`).",
					},
					"nfs_version": schema.StringAttribute{
						Optional: true, Computed: true,
						MarkdownDescription: "NFS version, `3` or `4.1`. Default: the Filestore instance's protocol, or `3` for `nfs_source`.",
						Validators:          []validator.String{stringvalidator.OneOf("3", "4.1")},
					},
					"nconnect": schema.Int64Attribute{
						Optional: true, Computed: true, Default: int64default.StaticInt64(clusterconfig.DefaultNFSNConnect),
						MarkdownDescription: fmt.Sprintf("TCP connections per client (`nconnect`), 1-16. Default %d.", clusterconfig.DefaultNFSNConnect),
						Validators:          []validator.Int64{int64validator.Between(1, 16)},
					},
				},
			},
			"lustre": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "A Managed Lustre file system for data and checkpoints. Set exactly one of `instance` and `mount_source`.",
				Attributes: map[string]schema.Attribute{
					"instance": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "A `hypercompute_lustre`'s `id` (`projects/{project}/locations/{zone}/instances/{name}`); it must be in the cluster's zone and network.",
					},
					"mount_source": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "An existing Lustre file system, `IP@tcp:/fsname`.",
					},
					"mount_path": schema.StringAttribute{
						Optional: true, Computed: true,
						Default:             stringdefault.StaticString(clusterconfig.DefaultLustreMountPoint),
						MarkdownDescription: "Where every VM mounts it. Default `" + clusterconfig.DefaultLustreMountPoint + "`.",
					},
				},
			},
			"buckets": tfutil.OptionalListNested(schema.ListNestedAttribute{
				MarkdownDescription: "Cloud Storage buckets every VM mounts with Cloud Storage FUSE, tuned per profile.",
				Validators:          []validator.List{listvalidator.SizeAtMost(16)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"bucket":     schema.StringAttribute{Required: true, MarkdownDescription: "Bucket name."},
					"mount_path": schema.StringAttribute{Required: true, MarkdownDescription: "Absolute mount path, e.g. `/gcs/data`."},
					"profile": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "`training` (read-mostly data sets) or `checkpointing` (large sequential writes). Nodes write to it with their role's `devstorage.read_write`; the controller and login VMs read it.",
						Validators:          []validator.String{stringvalidator.OneOf(clusterconfig.BucketProfileTraining, clusterconfig.BucketProfileCheckpointing)},
					},
					"cache_dir": schema.StringAttribute{Optional: true, MarkdownDescription: "Enables gcsfuse's file cache in this directory (a local SSD path)."},
				}},
			}),
			"storage": storageAttribute(),
			"controller": schema.SingleNestedAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "The controller VM (`<name>-controller`): slurmctld, slurmrestd and the agent. Changing its machine type, boot disk or image replaces the cluster.",
				Attributes: map[string]schema.Attribute{
					"machine_type": schema.StringAttribute{
						Optional: true, Computed: true, Default: stringdefault.StaticString(defaultControllerMachine),
						MarkdownDescription: "Machine type, offered in the zone. Default `" + defaultControllerMachine + "`.",
					},
					"boot_disk": bootDiskAttribute(true),
					"image": schema.StringAttribute{
						Optional: true, Computed: true, Default: stringdefault.StaticString(defaultImage),
						MarkdownDescription: "Boot image or image family. Default `" + defaultImage + "`.",
					},
					"name":        computedString("VM name, `<name>-controller`; also slurmctld's host name."),
					"internal_ip": computedString("Internal IP."),
					"self_link":   computedString("VM self link."),
				},
			},
			"login": schema.SingleNestedAttribute{
				Optional: true, Computed: true,
				Default:             objectdefault.StaticValue(loginDefault()),
				MarkdownDescription: fmt.Sprintf("The login VMs (`<name>-login-<i>`); `login_pools` adds further groups. Default: %d `%s`. Changing any of it is done in place: VMs are added, removed or recreated one by one; the controller is untouched.", defaultLoginCount, defaultLoginMachine),
				Attributes:          loginAttributes(),
			},
			"login_pools": tfutil.OptionalListNested(schema.ListNestedAttribute{
				MarkdownDescription: fmt.Sprintf("Further groups of login VMs (`<name>-login-<pool>-<i>`), each with the options of `login` (and the same defaults: "+
					"zone, public IP and OS Login the cluster's, %d `%s`), e.g. a pool with public IPs in another zone for one team. At most %d pools. "+
					"Changes are applied like `login`'s; a pool removed from the list has its VMs deleted.", defaultLoginCount, defaultLoginMachine, maxLoginPools),
				Validators:   []validator.List{listvalidator.SizeAtMost(maxLoginPools)},
				NestedObject: schema.NestedAttributeObject{Attributes: loginPoolAttributes()},
			}),
			"slurm": schema.SingleNestedAttribute{
				Optional: true, Computed: true,
				Default:             objectdefault.StaticValue(slurmDefault()),
				MarkdownDescription: "Cluster-wide Slurm settings. Every change is applied in place: the controller's agent validates the new slurm.conf with slurmctld before `scontrol reconfigure`, and a configuration slurmctld rejects fails the apply with slurmctld's own words while the cluster keeps running the old one.",
				Attributes: map[string]schema.Attribute{
					"cluster_name": schema.StringAttribute{
						Computed:            true,
						MarkdownDescription: "Slurm's `ClusterName`: the cluster's `name`.",
					},
					"scheduler_parameters": tfutil.OptionalList(schema.ListAttribute{
						ElementType:         types.StringType,
						MarkdownDescription: "`SchedulerParameters` options added to the product's defaults (`bf_continue`, `salloc_wait_nodes`, `sbatch_wait_nodes`), one per entry; an entry with a default's name replaces it.",
					}),
					"prolog": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "Prolog script body (starting with `#!`), run by slurmd before each job.",
					},
					"epilog": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "Epilog script body (starting with `#!`), run by slurmd after each job.",
					},
					"prolog_scripts": tfutil.OptionalList(schema.ListAttribute{
						ElementType: types.StringType,
						MarkdownDescription: fmt.Sprintf("Prolog scripts (each starting with `#!`) run in this order before each job, after the health policies' prolog checks; the first that fails stops the rest, "+
							"and Slurm drains the node and holds the job. At most %d; not together with `prolog`.", clusterconfig.MaxScripts),
					}),
					"epilog_scripts": tfutil.OptionalList(schema.ListAttribute{
						ElementType:         types.StringType,
						MarkdownDescription: fmt.Sprintf("Epilog scripts (each starting with `#!`) run in this order after each job. At most %d; not together with `epilog`.", clusterconfig.MaxScripts),
					}),
					"extra": tfutil.OptionalMap(schema.MapAttribute{
						ElementType:         types.StringType,
						MarkdownDescription: "Further slurm.conf settings (`MaxJobCount = \"20000\"`). Only settings Slurm 22.05 and later accept, and none the product manages itself, are allowed; both are checked at plan.",
					}),
					"suspend_time": schema.Int64Attribute{
						Optional:            true,
						MarkdownDescription: fmt.Sprintf("Seconds an idle dynamic node stays up before it is deleted (partitions may override). Default %d.", clusterconfig.DefaultSuspendTime),
						Validators:          []validator.Int64{int64validator.Between(1, 65533)},
					},
					"resume_timeout": schema.Int64Attribute{
						Optional:            true,
						MarkdownDescription: fmt.Sprintf("Seconds a powered-down node may take to boot and register (partitions may override). Default %d.", clusterconfig.DefaultResumeTimeout),
						Validators:          []validator.Int64{int64validator.Between(1, 65533)},
					},
				},
			},
			"accounting": accountingAttribute(),
			"monitoring": monitoringAttribute(),
			"os_login": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Manage SSH access with OS Login (IAM) instead of metadata SSH keys, on the controller and (unless `login.os_login` says otherwise) the login VMs. Default true; project-wide SSH keys are blocked either way.",
			},
			"service_account": schema.SingleNestedAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "The identity every role takes unless `service_accounts` sets its own: `email` for all of them, and `scopes`, when set (`[]`: VMs without scopes), instead of each role's minimal default. Changing it replaces the cluster.",
				Attributes: map[string]schema.Attribute{
					"email": schema.StringAttribute{
						Optional: true, Computed: true, Default: stringdefault.StaticString("default"),
						MarkdownDescription: "Service account email. Default `default`, the project's Compute Engine default service account.",
					},
					"scopes": schema.ListAttribute{
						Optional: true, Computed: true, ElementType: types.StringType,
						MarkdownDescription: "OAuth scope URLs for every role that does not set its own. Unset (planned empty), each role takes its own minimal scopes (see `service_accounts`). Removing it from the configuration keeps the scopes the VMs run with, and a cluster created by an earlier version keeps the list it was created with.",
					},
				},
			},
			"service_accounts": schema.SingleNestedAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "The identity of each role, least privilege by default: a token taken from a VM's metadata server can do only what its role needs. Changing a role's identity replaces the cluster; a compute identity change rolls the partitions' nodes.",
				Attributes: map[string]schema.Attribute{
					"controller": roleServiceAccountAttribute("the controller VM",
						"`compute` (power saving and repairs create, reset and delete nodes), `devstorage.read_only` (fetching the agent, bucket mounts), `logging.write`, `monitoring.write`"),
					"compute": roleServiceAccountAttribute("the partitions' nodes",
						"`devstorage.read_write` (bucket mounts and checkpoints written there), `logging.write`, `monitoring.write` — no Compute scope, so a job cannot touch the cluster's VMs"),
					"login": roleServiceAccountAttribute("the login VMs",
						"`devstorage.read_only` (fetching the agent, reading bucket mounts), `logging.write`, `monitoring.write` — no Compute and no storage writes, since every user logs in there"),
				},
			},
			"enable_public_ips": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Give the controller and (unless `login.enable_public_ip` says otherwise) the login VMs external IPs. Default false: VMs reach the internet through the network's Cloud NAT and users connect through IAP. Changing it replaces the cluster.",
			},
			"shielded_vm": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Secure Boot, vTPM and integrity monitoring on the controller and login VMs, and on the partitions' nodes (vTPM and integrity monitoring only on GPU machines, whose driver modules are often unsigned). Default true. Changing it replaces the cluster.",
			},
			"labels":           tfutil.LabelsAttribute("controller and login VMs"),
			"effective_labels": tfutil.EffectiveLabelsAttribute("controller and login VMs (with `hypercompute-cluster` and `hypercompute-role`)"),
			"deletion_protection": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Refuse to destroy or replace the cluster (its running jobs and slurmctld's state would go with it). Default true. `/home` and Lustre are never deleted by this resource either way.",
			},
			"agent": schema.SingleNestedAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "The node agent build every VM's launcher fetches and verifies. Defaults to the build released with this provider version; a development build of the provider has none and requires it. " +
					"A change updates every VM's payload in place; a VM runs the new build from its next boot.",
				Attributes: map[string]schema.Attribute{
					"url": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "Where the launcher fetches the x86_64 agent: `https://`, `http://`, `file:///` or an absolute path inside the image.",
					},
					"sha256": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "SHA-256 of the binary (64 lowercase hex digits); the launcher refuses any other.",
					},
					"version": schema.StringAttribute{
						Optional: true, Computed: true,
						MarkdownDescription: "Version label of the build (names the installed binary). Default: the provider's version, or `dev`.",
					},
				},
			},
			"login_nodes": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The login VMs: the `login` block's in index order, then each of `login_pools` in order.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":        computedString("VM name and host name."),
					"internal_ip": computedString("Internal IP."),
					"zone":        computedString("Zone of the VM (its group's `zone`)."),
				}},
			},
			"ssh_command": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "`gcloud compute ssh` to the first of `login_nodes` in its zone (the controller when there is none), through IAP unless that VM has a public IP.",
			},
			"slurmrestd_endpoint": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "slurmrestd on the controller, `http://<internal ip>:6820`, reachable inside the VPC (JWT authentication).",
			},
			"config_hash": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Hash of the Slurm configuration this cluster declares by itself (its settings rendered without partitions): " +
					"it changes only when the cluster's own Slurm settings or accounting change, never when a partition or health policy " +
					"is added or changed. Whether the controller runs what every resource asked for shows in `config_drift`.",
			},
			"config_drift": schema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "What the controller runs that nobody declared, as of the last refresh: files the agent applied that were " +
					"changed on the controller out of band (`/etc/slurm/slurm.conf changed on the controller out of band`), or a reported " +
					"config hash that does not match the configuration in the controller's metadata. Empty after every apply; a refresh " +
					"that finds drift makes the plan show an update, and the apply has the agent rewrite and reconfigure.",
			},
			"node_config_hash": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Hash of what compute nodes take from the cluster at boot (agent build, mounts, controller address, " +
					"network, service account, Shielded VM). Pass it to every `hypercompute_node_partition` as `cluster_node_config_hash`: " +
					"it is unknown in a plan that changes it, so the partitions' plans show the rolling replacement of their static nodes.",
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

// roleServiceAccountAttribute is one role's identity in service_accounts.
func roleServiceAccountAttribute(vms, defaults string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true, Computed: true,
		MarkdownDescription: "Identity of " + vms + ".",
		Attributes: map[string]schema.Attribute{
			"email": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Service account email. Default `service_account.email`.",
			},
			"scopes": schema.ListAttribute{
				Optional: true, Computed: true, ElementType: types.StringType,
				MarkdownDescription: "OAuth scope URLs (`https://www.googleapis.com/auth/...`). Default `service_account.scopes` when that is set, else " + defaults + ". Guest attributes and metadata need no scope.",
			},
		},
	}
}
