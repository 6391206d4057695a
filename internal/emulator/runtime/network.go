//go:build linux

package vmruntime

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

type bridge struct {
	name  string
	hosts int // hosts attached; the bridge goes with the last one
}

// Names put the prefix before the first '-', so CleanupStale can recover the
// prefix of any leftover; the index is base 36 to stay within IFNAMSIZ (15).
func netnsName(prefix string, idx int) string {
	return prefix + "-h" + strconv.FormatInt(int64(idx), 36)
}
func bridgeName(prefix string, idx int) string {
	return prefix + "-b" + strconv.FormatInt(int64(idx), 36)
}
func vethName(prefix string, idx int) string {
	return prefix + "-v" + strconv.FormatInt(int64(idx), 36)
}

func netnsPath(ns string) string { return "/run/netns/" + ns }

func ipCmd(args ...string) error {
	var stderr bytes.Buffer
	cmd := exec.Command("ip", args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

func linkExists(name string) bool {
	_, err := os.Lstat("/sys/class/net/" + name)
	return err == nil
}

func deleteLink(name string) error {
	if !linkExists(name) {
		return nil
	}
	if err := ipCmd("link", "del", name); err != nil && linkExists(name) {
		return err
	}
	return nil
}

func deleteNetns(ns string) error {
	if _, err := os.Lstat(netnsPath(ns)); os.IsNotExist(err) {
		return nil
	}
	return ipCmd("netns", "del", ns)
}

// ensureBridge returns the bridge of a VPC, creating it on first use. Caller
// holds r.mu.
func (r *Runtime) ensureBridge(network string) (*bridge, error) {
	if b, ok := r.bridges[network]; ok {
		return b, nil
	}
	b := &bridge{name: bridgeName(r.cfg.Prefix, r.nextIdx)}
	r.nextIdx++
	if err := ipCmd("link", "add", b.name, "type", "bridge"); err != nil {
		return nil, err
	}
	if err := ipCmd("link", "set", b.name, "up"); err != nil {
		deleteLink(b.name)
		return nil, err
	}
	r.bridges[network] = b
	return b, nil
}

// releaseBridge drops one host's reference; the last one deletes the bridge.
// Caller holds r.mu.
func (r *Runtime) releaseBridge(network string) error {
	b, ok := r.bridges[network]
	if !ok {
		return nil
	}
	b.hosts--
	if b.hosts > 0 {
		return nil
	}
	delete(r.bridges, network)
	return deleteLink(b.name)
}

// plumbHost creates the host's netns and wires eth0 onto the VPC bridge. The
// default route is on-link so other subnets of the same VPC answer ARP
// directly; nothing else is reachable, as for a VM without external access.
func plumbHost(ns, veth, br string, s *HostSpec) error {
	steps := [][]string{
		{"netns", "add", ns},
		{"link", "add", veth, "mtu", strconv.Itoa(s.MTU), "type", "veth", "peer", "name", "eth0", "mtu", strconv.Itoa(s.MTU), "netns", ns},
		{"link", "set", veth, "master", br, "up"},
		{"-n", ns, "link", "set", "lo", "up"},
		{"-n", ns, "addr", "add", fmt.Sprintf("%s/%d", s.IP, s.PrefixLen), "dev", "eth0"},
		{"-n", ns, "link", "set", "eth0", "up"},
		{"-n", ns, "route", "add", "default", "dev", "eth0"},
	}
	for _, ip := range []string{MetadataIP, EmulatorIP, ServiceIP} {
		steps = append(steps, []string{"-n", ns, "addr", "add", ip + "/32", "dev", "lo"})
	}
	for _, st := range steps {
		if err := ipCmd(st...); err != nil {
			return err
		}
	}
	return nil
}
