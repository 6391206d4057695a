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
		fs, err := resolveFilestore(ctx, c, s, "home.filestore", s.home.filestore)
		if err != nil {
			return m, err
		}
		m.Home.Server, m.Home.Share = fs.Server, fs.Share
		m.Home.Tier, m.Home.CapacityGiB = fs.Tier, fs.CapacityGiB
		if m.Home.Version == "" {
			m.Home.Version = "3"
			if fs.Protocol == filestorepb.Instance_NFS_V4_1 {
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
			lm, err := resolveLustre(ctx, c, s, "lustre.instance", l.instance)
			if err != nil {
				return m, err
			}
			lm.MountPoint = l.mountPath
			m.Lustre = &lm
		}
	}
	extra, err := resolveStorage(ctx, c, s)
	if err != nil {
		return m, err
	}
	m.Extra = extra
	if err := clusterconfig.ValidateMounts(m); err != nil {
		return m, err
	}
	return m, nil
}

// filestoreShare is a READY Filestore instance's first share, as an NFS mount, and its protocol.
type filestoreShare struct {
	clusterconfig.NFSMount
	Protocol filestorepb.Instance_FileProtocol
}

// resolveFilestore reads a Filestore instance the cluster mounts (attr names it in errors).
func resolveFilestore(ctx context.Context, c *gcp.Clients, s *desired, attr, id string) (filestoreShare, error) {
	inst, err := findFilestore(ctx, c, id)
	if err != nil {
		return filestoreShare{}, fmt.Errorf("%s: reading Filestore instance %s: %w", attr, id, err)
	}
	if inst.GetState() != filestorepb.Instance_READY {
		return filestoreShare{}, fmt.Errorf("%s: Filestore instance %s is %s, not READY", attr, id, inst.GetState())
	}
	if len(inst.GetNetworks()) == 0 || len(inst.GetNetworks()[0].GetIpAddresses()) == 0 || len(inst.GetFileShares()) == 0 {
		return filestoreShare{}, fmt.Errorf("%s: Filestore instance %s has no IP address or file share yet", attr, id)
	}
	nw := inst.GetNetworks()[0]
	if !tfutil.SameNetwork(nw.GetNetwork(), s.network, s.project) {
		return filestoreShare{}, fmt.Errorf("%s: Filestore instance %s is attached to network %s, but the cluster's VMs are in %s; they could not mount it",
			attr, id, tfutil.NetworkPath(nw.GetNetwork(), s.project), tfutil.NetworkPath(s.network, s.project))
	}
	return filestoreShare{
		NFSMount: clusterconfig.NFSMount{
			Server: nw.GetIpAddresses()[0], Share: "/" + inst.GetFileShares()[0].GetName(),
			Tier: inst.GetTier().String(), CapacityGiB: inst.GetFileShares()[0].GetCapacityGb(),
		},
		Protocol: inst.GetProtocol(),
	}, nil
}

// resolveLustre reads a Managed Lustre instance the cluster mounts (attr names it in errors).
func resolveLustre(ctx context.Context, c *gcp.Clients, s *desired, attr, id string) (clusterconfig.LustreMount, error) {
	inst, err := findLustre(ctx, c, id)
	if err != nil {
		return clusterconfig.LustreMount{}, fmt.Errorf("%s: reading Managed Lustre instance %s: %w", attr, id, err)
	}
	if inst.MountPoint == "" {
		return clusterconfig.LustreMount{}, fmt.Errorf("%s: Managed Lustre instance %s has no mount point yet (state %s)", attr, id, inst.State)
	}
	if !tfutil.SameNetwork(inst.Network, s.network, s.project) {
		return clusterconfig.LustreMount{}, fmt.Errorf("%s: Managed Lustre instance %s is attached to network %s, but the cluster's VMs are in %s; they could not mount it",
			attr, id, inst.Network, tfutil.NetworkPath(s.network, s.project))
	}
	addr, fs, err := parseLustreSource(inst.MountPoint)
	if err != nil {
		return clusterconfig.LustreMount{}, fmt.Errorf("%s: Managed Lustre instance %s: %w", attr, id, err)
	}
	return clusterconfig.LustreMount{Address: addr, FSName: fs, CapacityGiB: inst.CapacityGib, Throughput: inst.PerUnitStorageThroughput}, nil
}
