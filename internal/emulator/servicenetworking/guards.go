package servicenetworking

import (
	"slices"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Compute cannot see what Service Networking and the producers hold on its resources, so it asks through
// delete guards: an allocated range attached to a connection, and a network with a connection or producer
// blocks, are in use. The guards only read the transaction, so registering them once per process serves every
// emulator in it.
func init() {
	compute.AddDeleteGuard(compute.KindGlobalAddresses, rangeGuard)
	compute.AddDeleteGuard(compute.KindNetworks, networkGuard)
}

// rangeGuard names the connection using the allocated range at key.
func rangeGuard(tx *core.Tx, key string) string {
	var a computepb.Address
	if ok, _ := tx.Get(compute.KindGlobalAddresses, key, &a); !ok || a.GetPurpose() != "VPC_PEERING" {
		return ""
	}
	net, err := ParseNetwork(tx, a.GetNetwork(), "")
	if err != nil {
		return ""
	}
	name := key[strings.LastIndex(key, "/")+1:]
	for _, rec := range tx.List(KindConnections, net.Key()+"/services/") {
		var c connectionRecord
		if rec.Decode(&c) == nil && slices.Contains(c.Ranges, name) {
			return connectionPath(c)
		}
	}
	return ""
}

// networkGuard names a connection or producer instance still attached to the network at key.
func networkGuard(tx *core.Tx, key string) string {
	for _, rec := range tx.List(KindConnections, key+"/services/") {
		var c connectionRecord
		if rec.Decode(&c) == nil {
			return connectionPath(c)
		}
	}
	for _, rec := range tx.List(KindAllocations, key+"/allocations/") {
		var a Allocation
		if rec.Decode(&a) == nil {
			return a.Owner
		}
	}
	return ""
}

func connectionPath(c connectionRecord) string {
	return "services/" + c.Service + "/connections/" + PeeringName(c.Service)
}
