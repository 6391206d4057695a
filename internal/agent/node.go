package agent

import (
	"context"
	"log/slog"
	"sync"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/metrics"
)

// host is what every role works with on this VM.
type host struct {
	log *slog.Logger
	md  *Metadata
	rep *reporter
	sup supervisor
	// exe is this agent binary (the launcher's verified copy).
	exe string
	// stateDir keeps the agent's own state across restarts and reboots.
	stateDir string
	// keyWait bounds how long login and compute VMs wait for the
	// controller's munge key and Slurm files.
	keyWait time.Duration
	// The HTTP server (metrics_server.go), the metrics registry and its samplers.
	http         httpServer
	reg          *metrics.Registry
	regOnce      sync.Once
	samplersOnce sync.Once
	// listenIP replaces the metadata's internal address (tests).
	listenIP string
	// cloud is the Cloud Monitoring writer of the registry's key series (cloudmon.go).
	cloud cloudMonState
}

// role drives the VM towards its configuration. reconcile is called with
// every new metadata snapshot and periodically, so it must be idempotent
// and cheap when nothing changed.
type role interface {
	reconcile(ctx context.Context, n cc.Node, attrs map[string]string) error
}

// mountShared mounts the node's shared file systems.
func (h *host) mountShared(ctx context.Context, n cc.Node) error {
	h.rep.progress(ctx, cc.PhaseMounting)
	timeout := time.Duration(n.MountTimeout) * time.Second
	if n.MountTimeout == 0 {
		timeout = cc.DefaultMountTimeout * time.Second
	}
	return newMounter(h.log, timeout).mountAll(ctx, n.Mounts)
}

// joinMunge waits for the cluster's munge key on /home and runs munged
// with it (login and compute VMs).
func (h *host) joinMunge(ctx context.Context, n cc.Node) error {
	key, err := waitSharedMungeKey(ctx, n.Mounts.SharedMungeKey(), n.Controller.Hostname, h.keyWait)
	if err != nil {
		return err
	}
	return startMunge(ctx, h.sup, key)
}
