package acctest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/provider"
)

// ProviderAddress is the address configurations' required_providers resolve hypercompute/hypercompute to.
const ProviderAddress = "registry.terraform.io/hypercompute/hypercompute"

// ServeProvider serves a fresh instance of the provider under test in this process until stop is
// called, for terraform commands the test runs itself (a script, a CLI call): their environment
// takes TF_REATTACH_PROVIDERS=reattach. A reattached provider is "unmanaged": init installs
// nothing for it, so neither a registry nor a mirror is involved.
func ServeProvider(tb testing.TB) (reattach string, stop func()) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	configCh := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- tf6server.Serve(ProviderAddress, providerserver.NewProtocol6(provider.New("test")()),
			tf6server.WithDebug(ctx, configCh, closed),
			tf6server.WithGoPluginLogger(hclog.NewNullLogger()),
			tf6server.WithLoggingSink(logSink{tb}),
			tf6server.WithoutLogStderrOverride())
	}()
	var rc *plugin.ReattachConfig
	select {
	case rc = <-configCh:
	case err := <-served:
		cancel()
		tb.Fatalf("serving the provider: %v", err)
	case <-time.After(time.Minute):
		cancel()
		tb.Fatal("the provider was not served within a minute")
	}
	info := tfexec.ReattachInfo{ProviderAddress: {
		Protocol: string(rc.Protocol), ProtocolVersion: rc.ProtocolVersion, Pid: rc.Pid, Test: rc.Test,
		Addr: tfexec.ReattachConfigAddr{Network: rc.Addr.Network(), String: rc.Addr.String()},
	}}
	b, err := json.Marshal(info)
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	return string(b), func() { cancel(); <-closed }
}

// logSink is the test as terraform-plugin-log's sink wants it (a benchmark has no Parallel).
type logSink struct{ testing.TB }

func (logSink) Parallel() {}
