// Command terraform-provider-hypercompute serves the hypercompute Terraform provider.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/provider"
)

// version is set by goreleaser (-ldflags "-X main.version=...") so the user agent and
// the agent payload name the release that rendered them.
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/hypercompute/hypercompute",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}
