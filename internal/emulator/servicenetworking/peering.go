package servicenetworking

import (
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// A connection is a VPC peering between the consumer network and a network of the service's tenant project;
// Compute shows it in the consumer network's peerings, which is what `gcloud compute networks peerings list`
// and Terraform read. setPeering keeps that entry in step with the connection.

// tenantNetwork is the producer side of the peering: a network of a tenant project derived from the consumer
// project, as the real service creates one per consumer.
func tenantNetwork(project, service string) string {
	return core.SelfLink("projects/tp-" + core.ProjectNumber(project+"/"+service) + "/global/networks/servicenetworking")
}

// setPeering adds (present) or removes the service's peering on the network record inside tx.
func setPeering(tx *core.Tx, n NetworkRef, service string, present bool, now time.Time) error {
	var net computepb.Network
	if ok, err := tx.Get(compute.KindNetworks, n.Key(), &net); !ok || err != nil {
		return err
	}
	name := PeeringName(service)
	kept := net.Peerings[:0]
	for _, p := range net.Peerings {
		if p.GetName() != name {
			kept = append(kept, p)
		}
	}
	net.Peerings = kept
	if present {
		net.Peerings = append(net.Peerings, &computepb.NetworkPeering{
			Name:                           proto.String(name),
			Network:                        proto.String(tenantNetwork(n.Project, service)),
			State:                          proto.String("ACTIVE"),
			StateDetails:                   proto.String("[" + core.RFC3339(now) + "]: Connected."),
			AutoCreateRoutes:               proto.Bool(true),
			ExchangeSubnetRoutes:           proto.Bool(true),
			ExportCustomRoutes:             proto.Bool(false),
			ImportCustomRoutes:             proto.Bool(false),
			ExportSubnetRoutesWithPublicIp: proto.Bool(false),
			ImportSubnetRoutesWithPublicIp: proto.Bool(false),
			StackType:                      proto.String("IPV4_ONLY"),
			PeerMtu:                        proto.Int32(max(net.GetMtu(), 1460)),
		})
	}
	return tx.Put(compute.KindNetworks, n.Key(), &net)
}
