// Command hypercompute-agent runs on every VM of a hypercompute cluster. The
// VM's launcher (the startup-script) verifies it and runs `start`; see
// package internal/agent for what it does per role.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// version is set at build time: -ldflags "-X main.version=0.1.0".
var version = "dev"

const usage = `usage: hypercompute-agent <command> [arguments]

commands:
  start                   (re)start the agent daemon in the background (the launcher runs this)
  run                     run the agent in the foreground
  status                  show what the agent reported and which daemons run
  resume <nodelist>       create the VMs of Slurm nodes (slurmctld's ResumeProgram)
  suspend <nodelist>      delete the VMs of Slurm nodes (SuspendProgram)
  resume-fail <nodelist>  clean up nodes that did not come up (ResumeFailProgram)
  healthcheck <schedule>  run this node's health checks; drain it on a failure (HealthCheckProgram, prolog, epilog)
  nccl-pairs <partition>  on the controller: the NCCL check's pairwise pass over the partition's idle nodes; drain the bad ones
  goodput --since <window> measured goodput from Slurm accounting over a window (7d, 24h, 90m, 2w)
  report --since <window> [--out FILE]
                          the goodput and health report as one HTML page (to stdout, or FILE)
  version                 print the agent's version
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "hypercompute-agent:", err)
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprint(os.Stderr, usage)
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError string

func (u usageError) Error() string { return string(u) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError("no command given")
	}
	cmd, rest := args[0], args[1:]
	nodelist := func() (string, error) {
		if len(rest) != 1 || rest[0] == "" {
			return "", usageError(cmd + " takes exactly one argument, a Slurm node list")
		}
		return rest[0], nil
	}
	noArgs := func() error {
		if len(rest) != 0 {
			return usageError(cmd + " takes no arguments")
		}
		return nil
	}
	switch cmd {
	case "version", "--version", "-v":
		if err := noArgs(); err != nil {
			return err
		}
		fmt.Fprintln(stdout, version)
		return nil
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return nil
	case "start":
		if err := noArgs(); err != nil {
			return err
		}
		loadEnvironmentFile("/etc/environment")
		return agent.Start(ctx)
	case "run":
		if err := noArgs(); err != nil {
			return err
		}
		loadEnvironmentFile("/etc/environment")
		log, closer := agent.NewLogger(stderr)
		defer closer.Close()
		return agent.Run(ctx, agent.Options{Version: version, Log: log, Ready: agent.SignalReady})
	case "status":
		if err := noArgs(); err != nil {
			return err
		}
		loadEnvironmentFile("/etc/environment")
		return agent.Status(ctx, stdout, version)
	case cc.AgentCmdHealthCheck:
		schedule, err := nodelist()
		if err != nil {
			return usageError(cmd + " takes exactly one argument, the schedule (boot, prolog, epilog, periodic, on_demand)")
		}
		loadEnvironmentFile("/etc/environment")
		return agent.HealthCheck(ctx, schedule, stdout)
	case "nccl-pairs":
		if len(rest) != 1 || rest[0] == "" {
			return usageError(cmd + " takes exactly one argument, a partition")
		}
		loadEnvironmentFile("/etc/environment")
		return agent.NCCLPairs(ctx, rest[0], stdout)
	case "goodput":
		if len(rest) != 2 || rest[0] != "--since" {
			return usageError(cmd + " takes --since <window>, e.g. goodput --since 7d")
		}
		return agent.GoodputReport(ctx, rest[1], stdout)
	case "report":
		window, out, err := reportArgs(rest)
		if err != nil {
			return err
		}
		if out == "" || out == "-" {
			return agent.WriteReport(ctx, window, stdout)
		}
		if err := agent.WriteReportFile(ctx, window, out); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "wrote", out)
		return nil
	case cc.AgentCmdResume, cc.AgentCmdSuspend, cc.AgentCmdResumeFail:
		nodes, err := nodelist()
		if err != nil {
			return err
		}
		loadEnvironmentFile("/etc/environment")
		return powerCommand(ctx, cmd, nodes)
	}
	return usageError(fmt.Sprintf("unknown command %q", cmd))
}

// reportArgs reads `report --since <window> [--out FILE]`, in any order.
func reportArgs(args []string) (window, out string, err error) {
	const how = "report takes --since <window> and optionally --out FILE, e.g. report --since 7d --out report.html"
	for i := 0; i < len(args); i += 2 {
		if i+1 >= len(args) || args[i+1] == "" {
			return "", "", usageError(how)
		}
		switch args[i] {
		case "--since":
			window = args[i+1]
		case "--out":
			out = args[i+1]
		default:
			return "", "", usageError(fmt.Sprintf("report: unknown flag %q; %s", args[i], how))
		}
	}
	if window == "" {
		return "", "", usageError(how)
	}
	if _, err := agent.ParseWindow(window); err != nil {
		return "", "", usageError("report: " + err.Error())
	}
	return window, out, nil
}
