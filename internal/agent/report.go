package agent

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// maxReportLen keeps a reported text within the metadata server's limit
// for a guest attribute value (4096 bytes), on a character boundary.
const maxReportLen = 4000

// guestAttributes is what a reporter writes to; *Metadata in production.
type guestAttributes interface {
	SetGuestAttribute(ctx context.Context, key, value string) error
	DeleteGuestAttribute(ctx context.Context, key string) error
}

// reporter publishes the agent's state as guest attributes and logs every
// change. Reports are best effort (the agent keeps working when the
// metadata server is briefly away), but a VM without guest attributes is
// logged loudly once: the provider would otherwise wait in vain.
type reporter struct {
	ga  guestAttributes
	log *slog.Logger

	mu           sync.Mutex
	values       map[string]string
	warnedOff    bool
	reachedReady bool
	failing      bool
}

func newReporter(ga guestAttributes, log *slog.Logger) *reporter {
	return &reporter{ga: ga, log: log, values: map[string]string{}}
}

// progress reports a bootstrap phase. Once the VM was ready or failed,
// intermediate phases of later passes are not reported: the provider
// must not mistake a retry for a fresh bootstrap.
func (r *reporter) progress(ctx context.Context, phase string) {
	r.mu.Lock()
	quiet := r.reachedReady || r.failing
	r.mu.Unlock()
	if quiet {
		r.log.Debug("phase", "phase", phase)
		return
	}
	r.log.Info("phase", "phase", phase)
	r.set(ctx, cc.GuestAttrPhase, phase)
}

// ready reports phase=ready and clears an earlier error.
func (r *reporter) ready(ctx context.Context) {
	r.mu.Lock()
	first := !r.reachedReady || r.failing
	r.reachedReady, r.failing = true, false
	r.mu.Unlock()
	if first {
		r.log.Info("phase", "phase", cc.PhaseReady)
	}
	r.set(ctx, cc.GuestAttrPhase, cc.PhaseReady)
	r.clear(ctx, cc.GuestAttrError)
}

// fail reports phase=error with the error's text.
func (r *reporter) fail(ctx context.Context, err error) {
	r.mu.Lock()
	r.failing = true
	r.mu.Unlock()
	text := clip(err.Error())
	r.log.Error("bootstrap failed", "error", text)
	r.set(ctx, cc.GuestAttrError, text)
	r.set(ctx, cc.GuestAttrPhase, cc.PhaseError)
}

// set writes one attribute unless it already holds value.
func (r *reporter) set(ctx context.Context, key, value string) {
	value = clip(value)
	r.mu.Lock()
	if old, ok := r.values[key]; ok && old == value {
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	if err := r.retry(ctx, func(ctx context.Context) error { return r.ga.SetGuestAttribute(ctx, key, value) }); err != nil {
		r.warn(key, err)
		return
	}
	r.mu.Lock()
	r.values[key] = value
	r.mu.Unlock()
}

// clear deletes one attribute.
func (r *reporter) clear(ctx context.Context, key string) {
	r.mu.Lock()
	if old, ok := r.values[key]; ok && old == "\x00deleted" {
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	if err := r.retry(ctx, func(ctx context.Context) error { return r.ga.DeleteGuestAttribute(ctx, key) }); err != nil {
		r.warn(key, err)
		return
	}
	r.mu.Lock()
	r.values[key] = "\x00deleted"
	r.mu.Unlock()
}

func (r *reporter) retry(ctx context.Context, call func(context.Context) error) error {
	var err error
	for attempt, wait := 0, 200*time.Millisecond; attempt < 5; attempt, wait = attempt+1, wait*2 {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err = call(cctx)
		cancel()
		if err == nil || errors.Is(err, ErrGuestAttributesDisabled) {
			return err
		}
		if sleepCtx(ctx, wait) != nil {
			return err
		}
	}
	return err
}

func (r *reporter) warn(key string, err error) {
	if errors.Is(err, ErrGuestAttributesDisabled) {
		r.mu.Lock()
		warned := r.warnedOff
		r.warnedOff = true
		r.mu.Unlock()
		if !warned {
			r.log.Error("cannot report to the provider", "error", err.Error())
		}
		return
	}
	r.log.Warn("cannot report guest attribute", "key", key, "error", err.Error())
}

// clip shortens text to maxReportLen bytes, keeping the beginning (where
// the failing step is named) and marking the cut.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxReportLen {
		return s
	}
	cut := maxReportLen - len(" [...]")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " [...]"
}
