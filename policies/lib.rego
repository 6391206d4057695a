# What every rule shares: the environments, which resource changes of a plan are judged, and how
# a value known only after apply is told apart from one that is set.
#
# input is the plan as `terraform show -json PLANFILE` prints it; data.hypercompute.context holds
# the environment under check and facts from the provider's own tables (internal/policy feeds it):
#   environment         "ml-dev", "ml-staging" or "ml-prod"
#   gpu_machine_types   machine types that carry GPUs (internal/catalog)
#   managed_slurm_keys  {"cluster": {Key: reason}, "partition": {Key: reason}} (internal/clusterconfig)
package hypercompute.policy

# The environments the pipelines run. Each rule says in which of them it is enforced, in its
# entry of `rules` (in the rule's own file).
environments := {"ml-dev", "ml-staging", "ml-prod"}

environment := data.hypercompute.context.environment

# enforced are the rules of the environment under check.
enforced contains rule if {
	some rule, spec in rules
	environment in spec.environments
}

applies(rule) if rule in enforced

# judged are the managed resources the plan creates or updates; a replacement deletes and creates,
# so its new object is judged. Deletes, data source reads and no-ops are not: they make nothing
# a rule could deny (deleting what is protected is refused by the provider's deletion protection).
judged contains rc if {
	some rc in input.resource_changes
	rc.mode == "managed"
	some action in rc.change.actions
	action in {"create", "update"}
}

# changes(type) are the judged changes of one resource type.
changes(type) := {rc | some rc in judged; rc.type == type}

# after(rc, path) is the planned value at path: null when it is unset, or unknown until apply.
after(rc, path) := object.get(rc.change.after, path, null)

# unknown(rc, path) holds when the value at path, or an object or list holding it, is known only
# after apply: terraform show -json leaves it out of "after" and marks it true in "after_unknown".
unknown(rc, path) if {
	some n in numbers.range(1, count(path))
	object.get(rc.change.after_unknown, array.slice(path, 0, n), false) == true
}

violation(rule, rc, msg) := {"rule": rule, "address": rc.address, "msg": msg}

# unknown_msg is the message of a rule that cannot see the value it checks.
unknown_msg(attr) := sprintf(
	"%s is not known until apply, so the %s policy cannot show it complies; set it from a value known at plan time",
	[attr, environment],
)
