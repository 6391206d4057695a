package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	// slurmctld runs its power programs with an environment of its own making, without PATH; the
	// resume program runs scontrol to tell Slurm about nodes it could not create.
	if os.Getenv("PATH") == "" {
		os.Setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	}
	env, err := powerEnv(ctx)
	if err != nil {
		return fmt.Errorf("%s %s: %w", cmd, nodelist, err)
	}
	switch cmd {
	case cc.AgentCmdResume:
		if err = power.Resume(ctx, env, nodelist); err != nil {
			// Slurm ignores the program's exit status: it must hear of the failure from us.
			if merr := agent.ResumeFailed(ctx, env, err); merr != nil {
				err = errors.Join(err, fmt.Errorf("telling Slurm: %w", merr))
			}
		}
	case cc.AgentCmdSuspend:
		err = power.Suspend(ctx, env, nodelist)
	case cc.AgentCmdResumeFail:
		err = power.ResumeFail(ctx, env, nodelist)
	}
	if err != nil {
		err = fmt.Errorf("%s %s: %w", cmd, nodelist, err)
		logPowerError(env, err)
		return err
	}
	return nil
}

// logPowerError keeps the error next to slurmctld's log (its directory belongs to SlurmUser, who
// runs the power programs): slurmctld drops their output and logs only the exit status.
func logPowerError(env power.Env, err error) {
	l := env.Cluster.WithDefaults().Layout
	if l.SlurmctldLogFile == "" {
		return
	}
	f, ferr := os.OpenFile(filepath.Join(filepath.Dir(l.SlurmctldLogFile), "hypercompute-power.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o640)
	if ferr != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %v\n", time.Now().UTC().Format(time.RFC3339), err)
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
		// The VM's own token on the local cloud too, so its scopes are checked as on Google Cloud.
		MetadataToken: true,
		UserAgent:     "hypercompute-agent/" + version,
	})
	if err != nil {
		return power.Env{}, fmt.Errorf("creating Compute API clients: %w", err)
	}
	return power.Env{Clients: clients, Project: project, Zone: zone, Cluster: cluster, Partitions: parts}, nil
}
