package catalog

import (
	"strings"
	"testing"
)

func TestNICStackInfo(t *testing.T) {
	tests := []struct {
		stack                    NICStack
		vpcs, subnets, mtu, host int
		nicType                  string
		profile                  bool
		envContains              string
	}{
		{NICTCPX, 4, 1, 8244, 0, NICTypeGVNIC, false, "NCCL_GPUDIRECTTCPX_"},
		{NICTCPXO, 8, 1, 8244, 0, NICTypeGVNIC, false, "source /var/lib/tcpxo/lib64/nccl-env-profile.sh"},
		{NICRDMA, 1, 0, 8896, 1, NICTypeMRDMA, true, "source /usr/local/gib/scripts/set_nccl_env.sh"},
	}
	for _, tc := range tests {
		s, ok := NICStackInfo(tc.stack)
		if !ok {
			t.Fatalf("%s missing", tc.stack)
		}
		if s.GPUVPCs != tc.vpcs || s.SubnetsPerVPC != tc.subnets || s.MTU != tc.mtu || s.HostGVNICVPCs != tc.host ||
			s.NICType != tc.nicType || s.NetworkProfileRequired != tc.profile {
			t.Errorf("%s spec = %+v", tc.stack, s)
		}
		if !strings.Contains(s.NCCLEnvScript, tc.envContains) {
			t.Errorf("%s env script lacks %q", tc.stack, tc.envContains)
		}
	}
	if s, ok := NICStackInfo(NICNone); !ok || s.GPUVPCs != 0 || s.NCCLEnvScript != "" {
		t.Errorf("none = %+v, %v", s, ok)
	}
	if _, ok := NICStackInfo("infiniband"); ok {
		t.Error("unknown stack found")
	}
	rdma, _ := NICStackInfo(NICRDMA)
	if !strings.Contains(rdma.NCCLEnvScript, "LD_LIBRARY_PATH=/usr/local/gib/lib64") {
		t.Error("RDMA env must put the gIB libraries on LD_LIBRARY_PATH")
	}
}

func TestNICLayoutPerMachine(t *testing.T) {
	tests := []struct {
		machine        string
		subnets, total int
	}{
		{"a3-highgpu-8g", 1, 5},   // nic0 + 4 TCPX
		{"a3-megagpu-8g", 1, 9},   // nic0 + 8 TCPXO
		{"a3-ultragpu-8g", 8, 10}, // 2 gVNIC + 8 MRDMA
		{"a4-highgpu-8g", 8, 10},
		{"a4x-highgpu-4g", 4, 6}, // 2 gVNIC + 4 MRDMA
	}
	for _, tc := range tests {
		m, _ := Machine(tc.machine)
		s, _ := NICStackInfo(m.NICStack)
		if got := s.Subnets(m); got != tc.subnets {
			t.Errorf("%s subnets = %d, want %d", tc.machine, got, tc.subnets)
		}
		if got := s.TotalNICs(m); got != tc.total {
			t.Errorf("%s NICs = %d, want %d", tc.machine, got, tc.total)
		}
	}
}

func TestParseNICStack(t *testing.T) {
	for in, want := range map[string]NICStack{"": NICNone, "none": NICNone, "TCPX": NICTCPX, " tcpxo ": NICTCPXO, "rdma": NICRDMA} {
		got, err := ParseNICStack(in)
		if err != nil || got != want {
			t.Errorf("ParseNICStack(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseNICStack("roce"); err == nil || !strings.Contains(err.Error(), "tcpxo") {
		t.Errorf("want error listing stacks, got %v", err)
	}
	if RDMANetworkProfile("us-central1-b") != "us-central1-b-vpc-roce" {
		t.Error("profile name")
	}
}
