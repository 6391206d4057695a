// Command hypercompute-emulator is the local cloud: an emulator of the Google Cloud APIs hypercompute uses
// (Compute Engine, Filestore, Managed Lustre, Service Networking, the metadata server) plus an admin API for
// fault injection and inspection. Point the provider at it with HYPERCOMPUTE_EMULATOR_HOST=host:port.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "hypercompute-emulator:", err)
		os.Exit(1)
	}
}

// run is main without the process: it serves until ctx ends, then saves state and returns.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hypercompute-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8780", "address to serve every API on (host:port; port 0 picks a free one)")
	stateFile := fs.String("state-file", "", "load state from this file at start and save it there on change and at exit")
	runtimeName := fs.String("runtime", "none", "VM runtime: "+strings.Join(runtimeNames(), ", "))
	logLevel := fs.String("log-level", "info", "log level: debug (one line per request), info, warn, error")
	seed := fs.Uint64("seed", 0, "seed for generated ids and fault decisions (0: from the clock)")
	opLatency := fs.Duration("op-latency", 20*time.Millisecond, "how long operations stay RUNNING unless a latency fault says otherwise")
	dataDir := fs.String("data-dir", "", "directory backing Filestore shares and Lustre file systems (default with --runtime=local: STATE_FILE.storage, or a directory removed at exit)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	attach, ok := runtimes[*runtimeName]
	if !ok {
		return fmt.Errorf("unknown --runtime %q (known: %s)", *runtimeName, strings.Join(runtimeNames(), ", "))
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if *seed == 0 {
		*seed = uint64(time.Now().UnixNano())
	}

	emu, err := emulator.New(emulator.Config{
		StateFile: *stateFile,
		Seed:      *seed,
		OpLatency: *opLatency,
		Logger:    log,
		DataDir:   *dataDir,
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		_ = emu.Close()
		return err
	}
	if attach == nil {
		log.Info("runtime none: serving the APIs only, VMs are records and do not boot (--runtime=local boots them)")
	} else {
		stopRuntime, err := attach(ctx, attachEnv{Emu: emu, Log: log, URL: "http://" + ln.Addr().String()})
		if err != nil {
			ln.Close()
			_ = emu.Close()
			return fmt.Errorf("starting runtime %q: %w", *runtimeName, err)
		}
		if stopRuntime != nil {
			// The runtime stops when the emulator closes, before the final state save.
			emu.Server().OnClose(func() {
				if err := stopRuntime(); err != nil {
					log.Error("stopping runtime", "err", err)
				}
			})
		}
	}
	fmt.Fprintf(stdout, "hypercompute-emulator listening on %s\n", ln.Addr())
	log.Info("serving", "addr", ln.Addr().String(), "stateFile", *stateFile, "runtime", *runtimeName)
	serveErr := emu.ServeListener(ctx, ln)
	if serveErr != nil && !errors.Is(serveErr, context.Canceled) {
		return serveErr
	}
	log.Info("stopped")
	return nil
}

func runtimeNames() []string {
	var out []string
	for n := range runtimes {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
