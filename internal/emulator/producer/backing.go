package producer

import (
	"encoding/json"
	"strings"
	"sync/atomic"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Backings keeps the directories that back one API's instances in step with the store, under
// {dataDir}/{Sub}/{project}/{location}/{instance}/...
type Backings struct {
	srv  *core.Server
	kind string
	sub  string
	// product names the API in log messages ("Filestore").
	product string
	// want is the backing path of a committed instance (JSON as stored under kind), or false while the
	// instance serves no data (not READY/ACTIVE).
	want func(key string, raw json.RawMessage) ([]string, bool)
	root atomic.Pointer[Backing]
}

// NewBackings watches kind in srv's store; a Backings without a data directory keeps no directories.
func NewBackings(srv *core.Server, kind, sub, product string, want func(key string, raw json.RawMessage) ([]string, bool)) *Backings {
	b := &Backings{srv: srv, kind: kind, sub: sub, product: product, want: want}
	b.watch()
	return b
}

// Current is the backing root now (a zero Backing keeps no directories).
func (b *Backings) Current() Backing {
	if r := b.root.Load(); r != nil {
		return *r
	}
	return Backing{}
}

// SetDataDir backs instances by directories under dataDir/{sub} from now on and creates those of the
// instances already serving (e.g. loaded from a state file). Empty: no backing directories.
func (b *Backings) SetDataDir(dataDir string) error {
	if dataDir == "" {
		b.root.Store(nil)
		return nil
	}
	root := Backing{Root: strings.TrimSuffix(dataDir, "/") + "/" + b.sub}
	b.root.Store(&root)
	for _, rec := range b.srv.Store.List(b.kind, "") {
		if rel, ok := b.want(rec.Key, rec.JSON); ok {
			if err := root.Ensure(rel...); err != nil {
				return err
			}
		}
	}
	return nil
}

// Dir is the directory at rel under the root of instance name, if the emulator keeps one.
func (b *Backings) Dir(name string, rel ...string) (string, bool) {
	if strings.Count(name, "/") != 5 {
		return "", false
	}
	return b.Current().Dir(append(InstanceDir(name), rel...)...)
}

// InstanceDir is the path of an instance's directory under the backing root: {project}/{location}/{instance}.
func InstanceDir(name string) []string {
	parts := strings.Split(name, "/") // projects/p/locations/l/instances/i
	return []string{parts[1], parts[3], parts[5]}
}

// watch keeps backing directories in step with committed state: a serving instance has its directory
// (instances loaded from a snapshot included), a deleted one loses it with its data. Only committed changes
// are seen, so a rolled-back operation never removes anything.
func (b *Backings) watch() {
	cancel := b.srv.Store.Watch(func(c core.Change) {
		root := b.Current()
		if root.Root == "" || c.Kind != b.kind || strings.Count(c.Key, "/") != 5 {
			return
		}
		if c.New == nil {
			if err := root.Remove(InstanceDir(c.Key)...); err != nil {
				b.srv.Log.Error("removing a "+b.product+" backing directory", "instance", c.Key, "err", err)
			}
			return
		}
		if rel, ok := b.want(c.Key, c.New); ok {
			if err := root.Ensure(rel...); err != nil {
				b.srv.Log.Error("creating a "+b.product+" backing directory", "instance", c.Key, "err", err)
			}
		}
	})
	b.srv.OnClose(cancel)
}

// Register finishes an API's registration: it applies opts' data directory (logging, not failing, when its
// directories cannot be made) and provides svc under component.
func (b *Backings) Register(component, dataDir string, svc any) {
	if dataDir != "" {
		if err := b.SetDataDir(dataDir); err != nil {
			b.srv.Log.Error("preparing backing directories", "api", component, "err", err)
		}
	}
	b.srv.Provide(component, svc)
}
