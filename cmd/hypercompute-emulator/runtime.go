package main

import (
	"context"
	"log/slog"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
)

// attachFunc starts a VM runtime against a built emulator before it serves, and returns the function that stops
// the runtime; that runs when the emulator closes, before the final state save.
type attachFunc func(ctx context.Context, emu *emulator.Emulator, log *slog.Logger) (stop func() error, err error)

// runtimes maps --runtime values to their attach function. "none" serves the APIs only: instances exist as
// records. The local runtime (internal/emulator/runtime) is wired by adding its entry here:
//
//	"local": runtime.Attach,
var runtimes = map[string]attachFunc{
	"none": nil,
}
