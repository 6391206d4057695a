package network

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// refuseShrink refuses a longer gpu_networks.subnet_prefix_length than the GPU subnets have (the
// state's value is what the refresh read from them): Compute only ever expands a subnet's range, so
// a smaller subnet means deleting and recreating it, which the API refuses while VMs use it and
// which would take every GPU node's NICs with it. A change of stack or cidr recreates the subnets
// anyway and is not a shrink of the same ones.
func refuseShrink(plan, prior *gpuNetworksModel, diags *diag.Diagnostics) bool {
	if !prior.Stack.Equal(plan.Stack) || !prior.CIDR.Equal(plan.CIDR) ||
		prior.SubnetPrefixLength.IsNull() || prior.SubnetPrefixLength.IsUnknown() || plan.SubnetPrefixLength.IsUnknown() {
		return false
	}
	was, want := prior.SubnetPrefixLength.ValueInt64(), plan.SubnetPrefixLength.ValueInt64()
	if want <= was {
		return false
	}
	diags.AddAttributeError(path.Root("gpu_networks").AtName("subnet_prefix_length"), "GPU subnets cannot shrink",
		fmt.Sprintf("gpu_networks.subnet_prefix_length: the GPU subnets are /%d (%d addresses each) and Compute can only expand a subnet's range, never shrink it: "+
			"/%d (%d addresses) would mean deleting and recreating every GPU subnet, with the NICs of the nodes on them. Keep subnet_prefix_length = %d, or lower it to grow the subnets.",
			was, catalog.SubnetUsableAddresses(int(was)), want, catalog.SubnetUsableAddresses(int(want)), was))
	return true
}
