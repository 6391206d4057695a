package vmruntime

import (
	"fmt"
	"net"
	"regexp"
)

// HostSpec describes one emulated VM to boot.
type HostSpec struct {
	// ID keys the host in every Runtime method. Defaults to Name; set it (e.g.
	// "project/zone/name") when instance names can repeat across projects/zones.
	ID string
	// Name is the instance name and the host's hostname.
	Name    string
	Project string
	Zone    string
	// Network keys the VPC: hosts with the same Network share one bridge.
	Network   string
	IP        string
	PrefixLen int // of the subnet; 0 means 24
	MTU       int // 0 means 1460, the VPC default
	// StartupScript runs as root with bash at every boot; its output goes to the
	// serial console log.
	StartupScript string
	// MetadataAddr is host:port of this VM's metadata server in the root
	// namespace; inside the host it answers at 169.254.169.254:80
	// (metadata.google.internal). Empty: nothing listens there.
	MetadataAddr string
	// Hosts adds name → IP entries to /etc/hosts, beyond the hosts of the same
	// Network, which the runtime lists (and keeps current) by itself.
	Hosts map[string]string
}

var hostNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)

func (s *HostSpec) normalize() error {
	if s.ID == "" {
		s.ID = s.Name
	}
	if !hostNameRE.MatchString(s.Name) {
		return fmt.Errorf("host name %q: want a Compute Engine instance name", s.Name)
	}
	if s.Network == "" {
		return fmt.Errorf("host %q: network is required", s.ID)
	}
	ip := net.ParseIP(s.IP)
	if ip == nil || ip.To4() == nil {
		return fmt.Errorf("host %q: IP %q is not an IPv4 address", s.ID, s.IP)
	}
	if s.PrefixLen == 0 {
		s.PrefixLen = 24
	}
	if s.PrefixLen < 1 || s.PrefixLen > 32 {
		return fmt.Errorf("host %q: prefix length %d out of range", s.ID, s.PrefixLen)
	}
	if s.MTU == 0 {
		s.MTU = 1460
	}
	if s.MTU < 576 || s.MTU > 9000 {
		return fmt.Errorf("host %q: MTU %d out of range 576-9000", s.ID, s.MTU)
	}
	for name, addr := range s.Hosts {
		if net.ParseIP(addr) == nil {
			return fmt.Errorf("host %q: /etc/hosts entry %s=%q is not an IP", s.ID, name, addr)
		}
	}
	return nil
}

// fqdn is the name Compute Engine's internal DNS gives an instance.
func (s *HostSpec) fqdn() string {
	if s.Zone == "" || s.Project == "" {
		return ""
	}
	return fmt.Sprintf("%s.%s.c.%s.internal", s.Name, s.Zone, s.Project)
}
