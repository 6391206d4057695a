package trainingcluster

import (
	"context"
	"fmt"

	"cloud.google.com/go/filestore/apiv1/filestorepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// resolveMounts reads the Filestore and Lustre instances the configuration references and turns
// them into the mounts every VM gets. It refuses storage the cluster's VMs could not reach — another
// network, or an instance that is not ready — before any VM is created, naming the attribute.
// (Plan time cannot tell: another resource's network is not visible to this one's plan.)
func resolveMounts(ctx context.Context, c *gcp.Clients, s *desired) (clusterconfig.Mounts, error) {
	m := clusterconfig.Mounts{Buckets: s.buckets}
	m.Home = clusterconfig.NFSMount{Server: s.home.server, Share: s.home.share, Version: s.home.version, NConnect: s.home.nconnect}
	if s.home.filestore != "" {
		inst, err := findFilestore(ctx, c, s.home.filestore)
		if err != nil {
			return m, fmt.Errorf("home.filestore: reading Filestore instance %s: %w", s.home.filestore, err)
		}
		if inst.GetState() != filestorepb.Instance_READY {
			return m, fmt.Errorf("home.filestore: Filestore instance %s is %s, not READY", s.home.filestore, inst.GetState())
		}
		if len(inst.GetNetworks()) == 0 || len(inst.GetNetworks()[0].GetIpAddresses()) == 0 || len(inst.GetFileShares()) == 0 {
			return m, fmt.Errorf("home.filestore: Filestore instance %s has no IP address or file share yet", s.home.filestore)
		}
		nw := inst.GetNetworks()[0]
		if !tfutil.SameNetwork(nw.GetNetwork(), s.network, s.project) {
			return m, fmt.Errorf("home.filestore: Filestore instance %s is attached to network %s, but the cluster's VMs are in %s; they could not mount it",
				s.home.filestore, tfutil.NetworkPath(nw.GetNetwork(), s.project), tfutil.NetworkPath(s.network, s.project))
		}
		m.Home.Server = nw.GetIpAddresses()[0]
		m.Home.Share = "/" + inst.GetFileShares()[0].GetName()
		m.Home.Tier, m.Home.CapacityGiB = inst.GetTier().String(), inst.GetFileShares()[0].GetCapacityGb()
		if m.Home.Version == "" {
			m.Home.Version = "3"
			if inst.GetProtocol() == filestorepb.Instance_NFS_V4_1 {
				m.Home.Version = "4.1"
			}
		}
	}
	if m.Home.Version == "" {
		m.Home.Version = "3"
	}
	if l := s.lustre; l != nil {
		m.Lustre = &clusterconfig.LustreMount{Address: l.address, FSName: l.fsName, MountPoint: l.mountPath}
		if l.instance != "" {
			inst, err := findLustre(ctx, c, l.instance)
			if err != nil {
				return m, fmt.Errorf("lustre.instance: reading Managed Lustre instance %s: %w", l.instance, err)
			}
			if inst.MountPoint == "" {
				return m, fmt.Errorf("lustre.instance: Managed Lustre instance %s has no mount point yet (state %s)", l.instance, inst.State)
			}
			if !tfutil.SameNetwork(inst.Network, s.network, s.project) {
				return m, fmt.Errorf("lustre.instance: Managed Lustre instance %s is attached to network %s, but the cluster's VMs are in %s; they could not mount it",
					l.instance, inst.Network, tfutil.NetworkPath(s.network, s.project))
			}
			addr, fs, err := parseLustreSource(inst.MountPoint)
			if err != nil {
				return m, fmt.Errorf("lustre.instance: Managed Lustre instance %s: %w", l.instance, err)
			}
			m.Lustre.Address, m.Lustre.FSName = addr, fs
			m.Lustre.CapacityGiB, m.Lustre.Throughput = inst.CapacityGib, inst.PerUnitStorageThroughput
		}
	}
	if err := clusterconfig.ValidateMounts(m); err != nil {
		return m, err
	}
	return m, nil
}
