package release

import (
	"strings"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

func TestDefaultAgent(t *testing.T) {
	v, amd, arm := Version, AgentSHA256AMD64, AgentSHA256ARM64
	t.Cleanup(func() { Version, AgentSHA256AMD64, AgentSHA256ARM64 = v, amd, arm })

	Version, AgentSHA256AMD64, AgentSHA256ARM64 = "", "", ""
	if _, ok := DefaultAgent(catalog.ArchX86); ok || !IsDevBuild() {
		t.Fatal("a build without linker-set digests offers an agent")
	}
	Version, AgentSHA256AMD64 = "1.2.3", strings.Repeat("a", 64)
	a, ok := DefaultAgent(catalog.ArchX86)
	if !ok || IsDevBuild() {
		t.Fatal("a release build offers no agent")
	}
	want := "https://github.com/hypercompute/terraform-provider-hypercompute/releases/download/v1.2.3/hypercompute-agent_1.2.3_linux_amd64"
	if a.URL != want || a.SHA256 != AgentSHA256AMD64 || a.Version != "1.2.3" || a.Arch != catalog.ArchX86 {
		t.Errorf("DefaultAgent = %+v, want URL %s", a, want)
	}
	if _, ok := DefaultAgent(catalog.ArchARM); ok {
		t.Error("an arm64 agent is offered though the release carries no arm64 digest")
	}
}
