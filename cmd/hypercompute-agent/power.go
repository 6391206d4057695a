package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/power"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// powerCommand runs one of slurmctld's power-saving programs. It reads the
// cluster's configuration from the controller's metadata (where it runs)
// and calls the Compute API with the VM's credentials, or the local
// cloud's API where HYPERCOMPUTE_EMULATOR_HOST says so.
func powerCommand(ctx context.Context, cmd, nodelist string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	env, err := powerEnv(ctx)
	if err != nil {
		return fmt.Errorf("%s %s: %w", cmd, nodelist, err)
	}
	switch cmd {
	case cc.AgentCmdResume:
		err = power.Resume(ctx, env, nodelist)
	case cc.AgentCmdSuspend:
		err = power.Suspend(ctx, env, nodelist)
	case cc.AgentCmdResumeFail:
		err = power.ResumeFail(ctx, env, nodelist)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", cmd, nodelist, err)
	}
	return nil
}

func powerEnv(ctx context.Context) (power.Env, error) {
	md := agent.NewMetadata()
	attrs, err := md.Attributes(ctx)
	if err != nil {
		return power.Env{}, err
	}
	cluster, parts, err := agent.DesiredConfig(attrs)
	if err != nil {
		return power.Env{}, err
	}
	project, err := md.Project(ctx)
	if err != nil {
		return power.Env{}, fmt.Errorf("reading the project from the metadata server: %w", err)
	}
	zone, err := md.Zone(ctx)
	if err != nil {
		return power.Env{}, fmt.Errorf("reading the zone from the metadata server: %w", err)
	}
	clients, err := gcp.NewClients(ctx, gcp.Config{
		Project:      project,
		Zone:         zone,
		EmulatorHost: os.Getenv("HYPERCOMPUTE_EMULATOR_HOST"),
		UserAgent:    "hypercompute-agent/" + version,
	})
	if err != nil {
		return power.Env{}, fmt.Errorf("creating Compute API clients: %w", err)
	}
	return power.Env{Clients: clients, Project: project, Zone: zone, Cluster: cluster, Partitions: parts}, nil
}
