//go:build linux

package vmruntime

import (
	"strings"
	"testing"
)

// These need neither root nor Linux namespaces.

func TestNamesFitInterfaceLimit(t *testing.T) {
	const ifnamsiz = 15
	for _, name := range []string{bridgeName("abcdefgh", 60466175), vethName("abcdefgh", 60466175)} {
		if len(name) > ifnamsiz {
			t.Errorf("%s is %d characters, Linux allows %d", name, len(name), ifnamsiz)
		}
		m := leftoverRE.FindStringSubmatch(name)
		if m == nil || m[1] != "abcdefgh" {
			t.Errorf("CleanupStale cannot recover the prefix of %s", name)
		}
	}
	for _, bad := range []string{"", "UPPER", "has-dash", "toolong12"} {
		if prefixRE.MatchString(bad) {
			t.Errorf("prefix %q accepted", bad)
		}
	}
}

func TestRenderHosts(t *testing.T) {
	self := &HostSpec{Name: "ctl", Project: "p", Zone: "z", IP: "10.0.0.2", Hosts: map[string]string{"filer": "10.0.0.100"}}
	peer := &HostSpec{Name: "n1", IP: "10.0.0.3"}
	got := string(renderHosts(self, []*HostSpec{peer}))
	for _, want := range []string{
		"10.0.0.2\tctl.z.c.p.internal ctl\n",
		"10.0.0.3\tn1\n",
		"10.0.0.100\tfiler\n",
		"169.254.169.254\tmetadata.google.internal metadata\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/etc/hosts lacks %q:\n%s", want, got)
		}
	}
}

func TestScriptOutputMarker(t *testing.T) {
	dir := t.TempDir()
	log := &serialLog{path: dir + "/serial"}
	var code = -100
	o := &scriptOutput{log: log, marker: []byte("END:"), onExit: func(c int) { code = c }}
	o.Write([]byte("one\npartial"))
	o.Write([]byte(" lineEND:7\nlate daemon output\n"))
	o.Write([]byte("mentions END: but no status\n"))
	o.flush()
	out, next, err := log.read(0)
	if err != nil {
		t.Fatal(err)
	}
	if code != 7 {
		t.Errorf("exit code %d, want 7", code)
	}
	for _, want := range []string{"startup-script: one\n", "startup-script: partial line\n", "startup-script: late daemon output\n", "startup-script: mentions END: but no status\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("serial lacks %q:\n%s", want, out)
		}
	}
	if rest, n2, _ := log.read(next); rest != "" || n2 != next {
		t.Errorf("read at end: %q %d", rest, n2)
	}
}

func TestSpecValidation(t *testing.T) {
	for _, s := range []HostSpec{
		{Name: "Bad_Name", Network: "n", IP: "10.0.0.2"},
		{Name: "ok", IP: "10.0.0.2"},
		{Name: "ok", Network: "n", IP: "fe80::1"},
		{Name: "ok", Network: "n", IP: "10.0.0.2", PrefixLen: 33},
		{Name: "ok", Network: "n", IP: "10.0.0.2", Hosts: map[string]string{"x": "nope"}},
	} {
		if err := s.normalize(); err == nil {
			t.Errorf("accepted %+v", s)
		}
	}
	s := HostSpec{Name: "ok", Network: "n", IP: "10.0.0.2"}
	if err := s.normalize(); err != nil || s.ID != "ok" || s.PrefixLen != 24 || s.MTU != 1460 {
		t.Errorf("defaults: %+v %v", s, err)
	}
}

func TestUnescapeMount(t *testing.T) {
	if got := unescapeMount(`/a\040b\134c`); got != `/a b\c` {
		t.Errorf("got %q", got)
	}
}
