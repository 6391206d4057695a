package metadata

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// The metadata tree: directories list their entries (subdirectories with a trailing "/") and render as JSON
// objects with camelCase keys when fetched recursively; numbered directories (disks, network interfaces) render
// as JSON arrays; user-named entries (attributes) keep their names.
type node interface{ isNode() }

type dir struct {
	kids  map[string]node
	array bool // children are 0, 1, ...: a JSON array
	keep  bool // child names are user keys: no camelCase
}

type leaf string              // text as is; JSON string
type numLeaf string           // text as is; JSON number
type listLeaf []string        // text: one item per line; JSON array
type jsonLeaf struct{ v any } // text and JSON: the JSON encoding (instance/tags)

func (*dir) isNode()     {}
func (leaf) isNode()     {}
func (numLeaf) isNode()  {}
func (listLeaf) isNode() {}
func (jsonLeaf) isNode() {}

func newDir() *dir { return &dir{kids: map[string]node{}} }

func (d *dir) set(name string, n node) *dir { d.kids[name] = n; return d }

func (d *dir) names() []string {
	out := make([]string, 0, len(d.kids))
	for k := range d.kids {
		out = append(out, k)
	}
	if d.array {
		sort.Slice(out, func(i, j int) bool { a, _ := strconv.Atoi(out[i]); b, _ := strconv.Atoi(out[j]); return a < b })
	} else {
		sort.Strings(out)
	}
	return out
}

// root builds the whole tree of the VM at key.
func (m *Server) root(key string) (*dir, bool) {
	inst, ok := m.inst.Instance(key)
	if !ok {
		return nil, false
	}
	project, zone, _, _ := instances.ParseInstanceKey(key)
	return newDir().
		set("instance", m.instanceDir(key, project, zone, inst)).
		set("project", m.projectDir(project)), true
}

func attributesDir(md *computepb.Metadata) *dir {
	d := newDir()
	d.keep = true
	for _, it := range md.GetItems() {
		d.kids[it.GetKey()] = leaf(it.GetValue())
	}
	return d
}

func (m *Server) projectDir(project string) *dir {
	return newDir().
		set("project-id", leaf(project)).
		set("numeric-project-id", numLeaf(core.ProjectNumber(project))).
		set("attributes", attributesDir(m.inst.ProjectMetadata(project)))
}

func (m *Server) instanceDir(key, project, zone string, inst *computepb.Instance) *dir {
	num := core.ProjectNumber(project)
	hostname := inst.GetHostname()
	if hostname == "" {
		hostname = fmt.Sprintf("%s.%s.c.%s.internal", inst.GetName(), zone, project)
	}
	machineType := inst.GetMachineType()
	machineType = machineType[strings.LastIndex(machineType, "/")+1:]
	maintenance, preempted := m.inst.HostNotice(key, inst)
	d := newDir().
		set("attributes", attributesDir(inst.GetMetadata())).
		set("cpu-platform", leaf(inst.GetCpuPlatform())).
		set("description", leaf(inst.GetDescription())).
		set("hostname", leaf(hostname)).
		set("id", numLeaf(strconv.FormatUint(inst.GetId(), 10))).
		set("image", leaf("")).
		set("machine-type", leaf(fmt.Sprintf("projects/%s/machineTypes/%s", num, machineType))).
		set("maintenance-event", leaf(maintenance)).
		set("name", leaf(inst.GetName())).
		set("preempted", leaf(strings.ToUpper(strconv.FormatBool(preempted)))).
		set("tags", jsonLeaf{v: nonNil(inst.GetTags().GetItems())}).
		set("zone", leaf(fmt.Sprintf("projects/%s/zones/%s", num, zone)))

	disks := newDir()
	disks.array = true
	for i, dk := range inst.GetDisks() {
		disks.kids[strconv.Itoa(i)] = newDir().
			set("device-name", leaf(dk.GetDeviceName())).
			set("index", numLeaf(strconv.Itoa(int(dk.GetIndex())))).
			set("interface", leaf(dk.GetInterface())).
			set("mode", leaf(dk.GetMode())).
			set("type", leaf(dk.GetType()))
	}
	d.set("disks", disks)

	nics := newDir()
	nics.array = true
	for i, n := range inst.GetNetworkInterfaces() {
		nics.kids[strconv.Itoa(i)] = m.nicDir(num, n)
	}
	d.set("network-interfaces", nics)

	sc := inst.GetScheduling()
	d.set("scheduling", newDir().
		set("automatic-restart", leaf(strings.ToUpper(strconv.FormatBool(sc.GetAutomaticRestart())))).
		set("on-host-maintenance", leaf(sc.GetOnHostMaintenance())).
		set("preemptible", leaf(strings.ToUpper(strconv.FormatBool(sc.GetPreemptible() || sc.GetProvisioningModel() == "SPOT")))).
		set("provisioning-model", leaf(sc.GetProvisioningModel())))

	sas := newDir()
	sas.keep = true
	for i, sa := range inst.GetServiceAccounts() {
		acct := newDir().
			set("aliases", listLeaf{}).
			set("email", leaf(sa.GetEmail())).
			set("scopes", listLeaf(sa.GetScopes()))
		if i == 0 {
			acct.kids["aliases"] = listLeaf{"default"}
			sas.kids["default"] = acct
		}
		sas.kids[sa.GetEmail()] = acct
	}
	d.set("service-accounts", sas)

	ga := newDir()
	ga.keep = true
	if m.inst.GuestAttributesEnabled(key, inst) {
		for ns, kv := range m.inst.GuestAttributes(key).Values {
			nd := newDir()
			nd.keep = true
			for k, v := range kv {
				nd.kids[k] = leaf(v)
			}
			ga.kids[ns] = nd
		}
	}
	d.set("guest-attributes", ga)
	return d
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// nicDir describes one network interface as the guest sees it: address, gateway, mask and MTU of its subnet.
func (m *Server) nicDir(num string, n *computepb.NetworkInterface) *dir {
	netKey := core.RelativePath(n.GetNetwork())
	d := newDir().
		set("ip", leaf(n.GetNetworkIP())).
		set("network", leaf(fmt.Sprintf("projects/%s/networks/%s", num, netKey[strings.LastIndex(netKey, "/")+1:]))).
		set("dns-servers", leaf("169.254.169.254")).
		set("mac", leaf(macOf(n.GetNetworkIP())))
	mtu := int32(1460)
	var nw computepb.Network
	if ok, _ := m.srv.Store.Get(compute.KindNetworks, netKey, &nw); ok && nw.GetMtu() > 0 {
		mtu = nw.GetMtu()
	}
	d.set("mtu", numLeaf(strconv.Itoa(int(mtu))))
	var sub computepb.Subnetwork
	if ok, _ := m.srv.Store.Get(compute.KindSubnetworks, core.RelativePath(n.GetSubnetwork()), &sub); ok {
		if p, err := netip.ParsePrefix(sub.GetIpCidrRange()); err == nil {
			p = p.Masked()
			gw := sub.GetGatewayAddress()
			if gw == "" {
				gw = p.Addr().Next().String()
			}
			d.set("gateway", leaf(gw)).set("subnetmask", leaf(maskOf(p.Bits())))
		}
	}
	acs := newDir()
	acs.array = true
	for i, ac := range n.GetAccessConfigs() {
		acs.kids[strconv.Itoa(i)] = newDir().set("external-ip", leaf(ac.GetNatIP())).set("type", leaf(ac.GetType()))
	}
	d.set("access-configs", acs)
	fwd := newDir()
	fwd.array = true
	d.set("forwarded-ips", fwd)
	alias := newDir()
	alias.array = true
	d.set("ip-aliases", alias)
	return d
}

func maskOf(bits int) string {
	v := ^uint32(0) << (32 - bits)
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, (v>>16)&0xff, (v>>8)&0xff, v&0xff)
}

// macOf derives the MAC Compute gives an interface from its address (42:01 followed by the IPv4 bytes).
func macOf(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil || !a.Is4() {
		return ""
	}
	b := a.As4()
	return fmt.Sprintf("42:01:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3])
}

// lookup walks the tree along path segments.
func lookup(root *dir, segs []string) (node, bool) {
	var n node = root
	for _, s := range segs {
		d, ok := n.(*dir)
		if !ok {
			return nil, false
		}
		if n, ok = d.kids[s]; !ok {
			return nil, false
		}
	}
	return n, true
}

func camel(name string) string {
	parts := strings.Split(name, "-")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// jsonValue is the recursive JSON form of a node.
func jsonValue(n node) any {
	switch v := n.(type) {
	case *dir:
		if v.array {
			out := []any{}
			for _, k := range v.names() {
				out = append(out, jsonValue(v.kids[k]))
			}
			return out
		}
		out := map[string]any{}
		for k, c := range v.kids {
			name := k
			if !v.keep {
				name = camel(k)
			}
			out[name] = jsonValue(c)
		}
		return out
	case leaf:
		return string(v)
	case numLeaf:
		return json.Number(v)
	case listLeaf:
		return nonNil(v)
	case jsonLeaf:
		return v.v
	}
	return nil
}

// text is the default (alt=text) form of a leaf.
func text(n node) string {
	switch v := n.(type) {
	case leaf:
		return string(v)
	case numLeaf:
		return string(v)
	case listLeaf:
		if len(v) == 0 {
			return ""
		}
		return strings.Join(v, "\n") + "\n"
	case jsonLeaf:
		b, _ := json.Marshal(v.v)
		return string(b)
	}
	return ""
}

// listing is a directory's non-recursive text form: one entry per line, directories with a trailing "/".
func listing(d *dir) []string {
	var out []string
	for _, k := range d.names() {
		if _, isDir := d.kids[k].(*dir); isDir {
			out = append(out, k+"/")
		} else {
			out = append(out, k)
		}
	}
	return out
}

// flatText is the recursive alt=text form: "path value" per leaf.
func flatText(prefix string, n node, b *strings.Builder) {
	d, ok := n.(*dir)
	if !ok {
		fmt.Fprintf(b, "%s %s\n", prefix, strings.TrimSuffix(text(n), "\n"))
		return
	}
	for _, k := range d.names() {
		p := k
		if prefix != "" {
			p = prefix + "/" + k
		}
		flatText(p, d.kids[k], b)
	}
}
