package nodepartition

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

func (r *partitionResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	replaceObj := []planmodifier.Object{objectplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "One Slurm partition of a `hypercompute_training_cluster` and the VMs behind it: an instance " +
			"template, an optional compact placement policy, `static_node_count` VMs created with `bulkInsert` " +
			"(all-or-nothing by default), and up to `max_dynamic_node_count` more that Slurm's power saving creates on " +
			"demand and deletes when idle (the cluster agent's ResumeProgram and SuspendProgram). GPU NICs are wired from " +
			"the cluster network's GPU network set, per machine family. The partition writes its own configuration key " +
			"on the controller and an apply ends when the controller has validated and applied it.\n\n" +
			"Static nodes are `<prefix>-<index>` and dynamic nodes `<prefix>-d<index>`, ranges of their own, so changing " +
			"one count never renames or touches the other's nodes. Scaling `static_node_count` up creates only the missing " +
			"VMs; scaling either count down drains the highest-numbered nodes and deletes each once it runs no job, waiting " +
			"at most `drain_timeout` (`force_scale_down = true` deletes at once). Slurm options and " +
			"labels change in place; the machine type, zone, provisioning, placement, disks and image replace the " +
			"partition's VMs (the plan shows it).\n\n" +
			"Each resource is one node set. Several node sets form one Slurm partition when they name it in " +
			"`slurm.partition` (e.g. reserved, then Spot, then flex-start capacity of one GPU family): slurm.conf lists all " +
			"their nodes in one `PartitionName` line, and each node set's nodes carry its `slurm.weight` (by default from " +
			"`provisioning.model`), so Slurm fills the lowest-weight node set first. Each node set keeps its own template, " +
			"counts, node names, pre-flight and rolling updates, and is added or removed without touching the others.",
		Attributes: map[string]schema.Attribute{
			"id": tfutil.IDAttribute("`projects/{project}/zones/{zone}/clusters/{cluster}/partitions/{name}`; also the import ID."),
			"cluster": tfutil.ClusterAttribute(" Network, service account, tags, mounts and the agent build are read from its controller.",
				replace...),
			"name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Name of the node set, and of the Slurm partition it forms unless `slurm.partition` names " +
					"another one: a letter, then letters, digits, `_` and `-`, at most 40 characters. Nodes are named " +
					"`<cluster>-<name>-<index>` (lowercase, `_` as `-`). Health policies' `partitions` name node sets.",
				Validators:    []validator.String{tfutil.StringCheck{Desc: "a Slurm partition name", Check: catalog.ValidateSlurmPartitionName}},
				PlanModifiers: replace,
			},
			"machine_type": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Machine type of every node, e.g. `a3-megagpu-8g`, `a4-highgpu-8g`, `a4x-highgpu-4g`, `g2-standard-48`, `c3-standard-88`. GPUs, GRES, features, NICs, image and host maintenance follow from it.",
				Validators:          []validator.String{tfutil.StringCheck{Desc: "a machine type of the catalog", Check: catalog.ValidateMachineType}},
				PlanModifiers:       replace,
			},
			"zone": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Zone of the nodes. Defaults to the cluster's zone.",
				Validators:          []validator.String{tfutil.StringCheck{Desc: "a zone", Check: catalog.ValidateZone}},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured(), stringplanmodifier.UseStateForUnknown()},
			},
			"static_node_count": schema.Int64Attribute{
				Optional: true, Computed: true,
				Default:             int64default.StaticInt64(0),
				MarkdownDescription: "VMs that always exist (created by the provider, never powered down). Default 0. Must be 0 with `provisioning.model = \"flex_start\"`: Compute deletes a flex-start VM after its `max_run_duration` (7 days at most), so flex-start nodes are dynamic ones, obtained per job.",
				Validators:          []validator.Int64{int64validator.Between(0, cc.MaxPartitionNodes)},
			},
			"max_dynamic_node_count": schema.Int64Attribute{
				Optional: true, Computed: true,
				Default:             int64default.StaticInt64(0),
				MarkdownDescription: "Most VMs Slurm creates on demand (power saving, `State=CLOUD`) and deletes after `slurm.suspend_time` idle. Default 0.",
				Validators:          []validator.Int64{int64validator.Between(0, cc.MaxPartitionNodes)},
			},
			"provisioning": schema.SingleNestedAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "How the VMs are obtained. Default: on-demand (`model = \"standard\"`).",
				PlanModifiers:       replaceObj,
				Attributes: map[string]schema.Attribute{
					"model": schema.StringAttribute{
						Optional: true, Computed: true,
						MarkdownDescription: "`standard` (on-demand), `spot`, `flex_start` (Dynamic Workload Scheduler: waits for capacity, runs at most `max_run_duration`), `reservation` (consumes `reservation`; required for `a4x-highgpu-4g`) " +
							"or `calendar` (capacity of the calendar-mode `future_reservation`: the cluster's controller creates the nodes when Compute delivers it and removes them at its end).",
						Validators: []validator.String{stringvalidator.OneOf(provisioningModels...)},
					},
					"reservation": schema.StringAttribute{
						Optional: true,
						MarkdownDescription: "Reservation to consume with `model = \"reservation\"`: `NAME`, `projects/{project}/reservations/NAME` " +
							"for one shared from another project, optionally followed by `/reservationBlocks/{block}[/reservationSubBlocks/{sub-block}]`.",
						Validators: []validator.String{tfutil.StringCheck{Desc: "a reservation name", Check: func(s string) error { _, err := parseReservation(s, "p"); return err }}},
					},
					"future_reservation": schema.StringAttribute{
						Optional: true,
						MarkdownDescription: "With `model = \"calendar\"`: the future reservation (calendar mode, `gcloud compute future-reservations create --reservation-mode=CALENDAR`) in the partition's project and zone, by name. " +
							"The plan says when its capacity arrives and ends. Until it is delivered the partition's nodes are drained (jobs wait); at delivery the controller creates the static nodes on the delivered reservation " +
							"(dynamic ones on demand); 30 minutes before the end the nodes are drained and their jobs get `SIGUSR1` to checkpoint; at the end Compute stops the VMs and the controller deletes them.",
						Validators: []validator.String{tfutil.StringCheck{Desc: "a future reservation name", Check: checkFutureReservationName}},
					},
					"max_run_duration": schema.StringAttribute{
						Optional: true, Computed: true,
						MarkdownDescription: "Flex-start only: how long a VM may run, 30 s to 7 days (`\"30s\"`, `\"90m\"`, `\"24h\"`, `\"7d\"`). Default `7d`.",
					},
					"termination_action": schema.StringAttribute{
						Optional: true, Computed: true,
						MarkdownDescription: "Spot only: what a preemption does, `DELETE` (default: Slurm recreates the node on demand) or `STOP`.",
						Validators:          []validator.String{stringvalidator.OneOf("DELETE", "STOP")},
					},
				},
			},
			"placement": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "Compact placement: one `COLLOCATED` resource policy for all nodes (at most 1,500). Not for A3 Ultra, A4 and A4X, whose placement comes from the reservation's blocks, nor for E2 and G2.",
				PlanModifiers:       replaceObj,
				Attributes: map[string]schema.Attribute{
					"compact": schema.BoolAttribute{Required: true, MarkdownDescription: "Place the nodes close together."},
				},
			},
			"boot_disk": schema.SingleNestedAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Boot disk of each node. Default 200 GB for GPU machines (50 GB otherwise), `hyperdisk-balanced` on A3 Ultra, A4 and A4X, `pd-balanced` otherwise.",
				PlanModifiers:       replaceObj,
				Attributes: map[string]schema.Attribute{
					"size_gb": schema.Int64Attribute{Optional: true, Computed: true, MarkdownDescription: "Size in GB, 10-65536.",
						Validators: []validator.Int64{int64validator.Between(10, 65536)}},
					"type": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "`" + strings.Join(bootDiskTypes, "`, `") + "`.",
						Validators: []validator.String{stringvalidator.OneOf(bootDiskTypes...)}},
				},
			},
			"local_ssd_count": schema.Int64Attribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Local SSDs (375 GB each) per node. A3 and A4 machines come with theirs (16 or 32), which is the default and the only value; other families 0-24 (default 0).",
				Validators:          []validator.Int64{int64validator.Between(0, maxLocalSSDs)},
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
			},
			"image": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Boot image (`projects/{project}/global/images/{name}` or `.../images/family/{family}`). Defaults to the image the catalog pins for the machine type with its driver and NCCL plugin versions. Its architecture must match the machine's (arm64 for A4X).",
				PlanModifiers:       replace,
			},
			"storage": storageAttribute(),
			"startup_script": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "A script (starting with `#!`) each node runs once per boot after its own bootstrap (mounts, munge, the cluster's scripts) and before it joins Slurm, so a node whose script fails takes no job. " +
					"Its output is in the node's serial console (lines starting `startup-script:`); a failure fails the apply (or the node's power-up) with its exit code and last output. " +
					"A change is a new node configuration: the static nodes are replaced by the rolling update, dynamic ones take it when next created.",
				Validators: []validator.String{tfutil.StringCheck{Desc: "a script starting with #!", Check: cc.ValidateStartupScript}},
			},
			"labels":           tfutil.LabelsAttribute("partition's VMs and instance template"),
			"effective_labels": tfutil.EffectiveLabelsAttribute("partition's VMs"),
			"slurm": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "Slurm options of the partition, changed in place (the controller validates and reconfigures).",
				Attributes: map[string]schema.Attribute{
					"default": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
						MarkdownDescription: "Jobs that name no partition go here. At most one partition of a cluster. Default false."},
					"exclusive": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
						MarkdownDescription: "Jobs get whole nodes (`OverSubscribe=EXCLUSIVE`). Default false."},
					"max_time": schema.StringAttribute{Optional: true,
						MarkdownDescription: "Longest job: `UNLIMITED` (default), minutes, `hours:minutes:seconds` or `days-hours[:minutes[:seconds]]`.",
						Validators:          []validator.String{tfutil.StringCheck{Desc: "a Slurm time", Check: cc.ValidateSlurmTime}}},
					"resume_timeout": schema.Int64Attribute{Optional: true,
						MarkdownDescription: "Seconds a powered-down node may take to boot and register before Slurm marks it down. Default 1200 for GPU machines, the cluster's otherwise.",
						Validators:          []validator.Int64{int64validator.Between(1, 65533)}},
					"suspend_time": schema.Int64Attribute{Optional: true,
						MarkdownDescription: "Seconds a dynamic node stays idle before its VM is deleted. Default: the cluster's.",
						Validators:          []validator.Int64{int64validator.Between(1, 65533)}},
					"resume_retry_after": schema.Int64Attribute{Optional: true,
						MarkdownDescription: "Seconds a dynamic node whose power-up failed (see `nodes_failed`) stays `DOWN` and powered " +
							"down before the controller returns it to service, so a job waiting for it makes Slurm try again: a " +
							"stockout often clears within minutes. `0` never retries (an administrator returns the node with " +
							"`scontrol update nodename=<name> state=resume`). Default 600.",
						Validators: []validator.Int64{int64validator.Between(0, cc.MaxResumeRetryAfter)}},
					"features": tfutil.OptionalList(schema.ListAttribute{ElementType: types.StringType,
						MarkdownDescription: "Node features added to the machine's own (family, profile, GPU type, architecture).",
						Validators:          []validator.List{listvalidator.ValueStringsAre(tfutil.StringCheck{Desc: "a Slurm feature", Check: cc.ValidateFeature})}}),
					"partition": schema.StringAttribute{Optional: true,
						MarkdownDescription: "The Slurm partition this node set's nodes belong to. Default: the resource's own `name`, " +
							"a partition of its own. Node sets that name the same partition form one Slurm partition over all their " +
							"nodes (e.g. reserved, then Spot, then flex-start capacity of one GPU family, or two CPU machine types), " +
							"each keeping its own machine type, provisioning, template, counts, node names and rolling updates. They " +
							"must agree on the partition-wide settings (`default`, `exclusive`, `max_time`, `resume_timeout`, " +
							"`suspend_time`, `extra`); a node set's own `name` cannot be a Slurm partition other node sets form " +
							"unless it joins it. Changes in place.",
						Validators: []validator.String{tfutil.StringCheck{Desc: "a Slurm partition name", Check: catalog.ValidateSlurmPartitionName}}},
					"weight": schema.Int64Attribute{Optional: true,
						MarkdownDescription: "Slurm node `Weight` of this node set's nodes: a job gets the nodes with the lowest weight " +
							"that satisfy it, so the lowest-weight node set of a partition fills first. Default from " +
							"`provisioning.model`: `reservation` 10, `standard` 20, `spot` 30, `flex_start` 40 (capacity paid for " +
							"anyway first, preemptible and bounded capacity last). 1 to 1000000.",
						Validators: []validator.Int64{int64validator.Between(1, cc.MaxWeight)}},
					"extra": tfutil.OptionalMap(schema.MapAttribute{ElementType: types.StringType,
						MarkdownDescription: "Further `PartitionName` settings (e.g. `DefaultTime`, `MaxNodes`, `PriorityTier`), checked against the settings the product allows.",
						Validators:          []validator.Map{extraValidator{}}}),
				},
			},
			"cluster_node_config_hash": clusterNodeConfigHashAttribute(),
			"rolling_update":           rollingUpdateAttribute(),
			"force_scale_down": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "When `static_node_count` or `max_dynamic_node_count` goes down, delete the removed nodes at once even if jobs run on them. Default false: they are drained and deleted once idle, waiting at most `drain_timeout`.",
			},
			"drain_timeout": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(defaultDrainTimeout),
				MarkdownDescription: "How long an apply that removes nodes (a lower `static_node_count` or `max_dynamic_node_count`) waits for the jobs on them to end: the nodes are drained (no new job starts there) and each is deleted once idle. The apply logs which job it waits for. A Go duration, `\"0s\"` to `\"24h\"`. Default `\"" + defaultDrainTimeout + "\"`.",
				Validators:          []validator.String{tfutil.StringCheck{Desc: "a duration from 0s to 24h", Check: func(s string) error { _, err := parseDrainTimeout(s); return err }}},
			},
			"drain_timeout_action": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(drainActionFail),
				MarkdownDescription: "What an apply does with nodes whose jobs outlast `drain_timeout`: `fail` (default) ends the apply with an error naming each job, the nodes staying drained until the next apply deletes them once idle; `requeue` has the controller requeue those jobs (they restart on nodes in service, from their last checkpoint for recipe jobs), deletes the nodes once empty and warns, naming the jobs.",
				Validators:          []validator.String{stringvalidator.OneOf(drainActionFail, drainActionRequeue)},
			},
			"allow_partial": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "When the zone cannot supply every static node (stockout), keep the VMs that could be created and record them (the apply warns, and the next apply tries for the rest). Default false: all-or-nothing, nothing is kept.",
			},
			"wait_for_nodes": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Whether an apply that creates static nodes ends only once every one of them has registered in Slurm (so the first `srun` after `terraform apply` finds them idle), failing with a node's own error text when one fails to join. Default true. Set false for huge partitions whose nodes trickle in over a long time (VMs that boot slowly or stockouts filled later), where the apply should end as soon as the controller took the configuration.",
			},
			"node_name_prefix":   schema.StringAttribute{Computed: true, MarkdownDescription: "Static nodes are `<node_name_prefix>-<index>`, dynamic ones `<node_name_prefix>-d<index>` (ranges of their own: changing one count never renames the other's nodes); also the value of the `hypercompute-partition` label on every VM."},
			"static_node_names":  schema.StringAttribute{Computed: true, MarkdownDescription: "Slurm hostlist of the static nodes, e.g. `c-a3-[0-3]`."},
			"dynamic_node_names": schema.StringAttribute{Computed: true, MarkdownDescription: "Slurm hostlist of the dynamic nodes, e.g. `c-a3-d[0-7]`."},
			"instance_template":  schema.StringAttribute{Computed: true, MarkdownDescription: "The instance template every node is created from (`projects/{project}/global/instanceTemplates/{name}`)."},
			"placement_policy":   schema.StringAttribute{Computed: true, MarkdownDescription: "The compact placement policy, or empty."},
			"nodes_total":        schema.Int64Attribute{Computed: true, MarkdownDescription: "VMs of the partition that exist (static and dynamic), as of the last refresh."},
			"nodes_running":      schema.Int64Attribute{Computed: true, MarkdownDescription: "Of those, VMs in status RUNNING."},
			"node_names":         schema.StringAttribute{Computed: true, MarkdownDescription: "Slurm hostlist of the VMs that exist, as of the last refresh."},
			"nodes_failed":       nodesFailedAttribute(),
			"timeouts":           timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}
