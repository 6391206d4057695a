// Package release names the build of the node agent this provider release ships. A release build
// sets the variables with the linker:
//
//	-X github.com/hypercompute/terraform-provider-hypercompute/internal/release.Version=0.1.0
//	-X github.com/hypercompute/terraform-provider-hypercompute/internal/release.AgentSHA256AMD64=<sha256 of hypercompute-agent_0.1.0_linux_amd64>
//	-X github.com/hypercompute/terraform-provider-hypercompute/internal/release.AgentSHA256ARM64=<sha256 of hypercompute-agent_0.1.0_linux_arm64>
//
// The agents are built before the provider so their digests can be baked in: a VM's launcher
// refuses any binary whose SHA-256 differs, so the provider must know the digest, not just the URL.
// A development build has no digest, and then a cluster must name its agent build itself.
package release

import (
	"fmt"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// Set by the linker in release builds; empty in development builds.
var (
	Version          = ""
	AgentSHA256AMD64 = ""
	AgentSHA256ARM64 = ""
)

// DownloadBase is where release assets are published.
const DownloadBase = "https://github.com/hypercompute/terraform-provider-hypercompute/releases/download"

// Agent is one published agent build.
type Agent struct {
	Version string
	// Arch is catalog.ArchX86 or catalog.ArchARM.
	Arch   string
	URL    string
	SHA256 string
}

// DefaultAgent returns this release's agent build for a CPU architecture (catalog.ArchX86 or
// catalog.ArchARM). ok is false in a development build, or when the release carries no digest for
// arch: there is then no build the provider can vouch for.
func DefaultAgent(arch string) (Agent, bool) {
	goarch, sum := "amd64", AgentSHA256AMD64
	if arch == catalog.ArchARM {
		goarch, sum = "arm64", AgentSHA256ARM64
	}
	if Version == "" || sum == "" {
		return Agent{}, false
	}
	return Agent{Version: Version, Arch: arch, URL: AgentURL(Version, goarch), SHA256: sum}, true
}

// AgentURL is where a release's agent binary for linux/goarch is downloaded from.
func AgentURL(version, goarch string) string {
	return fmt.Sprintf("%s/v%s/hypercompute-agent_%s_linux_%s", DownloadBase, version, version, goarch)
}

// IsDevBuild reports whether this build has no agent build of its own.
func IsDevBuild() bool {
	_, ok := DefaultAgent(catalog.ArchX86)
	return !ok
}
