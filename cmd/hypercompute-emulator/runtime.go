package main

import (
	"context"
	"log/slog"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
)

// attachEnv is what a runtime's attach function gets: the built emulator (not yet serving) and where it will
// listen.
type attachEnv struct {
	Emu *emulator.Emulator
	Log *slog.Logger
	// URL is the emulator's base URL on this machine, "http://HOST:PORT".
	URL string
}

// attachFunc starts a VM runtime against a built emulator before it serves. A runtime that stops with the
// emulator by itself (a close hook) returns a nil stop; otherwise stop runs when the emulator closes, before
// the final state save.
type attachFunc func(ctx context.Context, env attachEnv) (stop func() error, err error)

// runtimes maps --runtime values to their attach function. "none" serves the APIs only: instances exist as
// records.
var runtimes = map[string]attachFunc{
	"none":  nil,
	"local": attachLocal,
}

// attachLocal boots RUNNING VMs as hosts of this machine. Where that cannot work (not Linux, not root, tools
// missing) the emulator still serves every API and says why in one line, so a developer without root keeps a
// working local cloud.
func attachLocal(_ context.Context, env attachEnv) (func() error, error) {
	if err := emulator.LocalRuntimeAvailable(); err != nil {
		env.Log.Warn("local runtime unavailable: serving the APIs only, VMs will not boot", "reason", err.Error())
		return nil, nil
	}
	if _, err := env.Emu.AttachLocalRuntime(emulator.LocalRuntimeConfig{EmulatorURL: env.URL}); err != nil {
		return nil, err
	}
	// The emulator's Close stops the runtime (every host killed and removed).
	return nil, nil
}
