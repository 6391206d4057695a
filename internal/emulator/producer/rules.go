package producer

import (
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// The rules the producer APIs behind private service access (Filestore, Managed Lustre) share besides IP
// blocks (servicenetworking's allocator): resource labels, update-mask parsing, backing directories of their
// file systems and storage stockouts.

// ValidateLabels applies Google Cloud's label rules (catalog.ValidateLabels, the table the provider checks
// at plan time too) and returns the 400 naming field and the offending key, or nil.
func ValidateLabels(field string, labels map[string]string) *core.APIError {
	if err := catalog.ValidateLabels(labels); err != nil {
		return core.GoogleError(http.StatusBadRequest, "%s: %v.", field, err)
	}
	return nil
}

// MaskPaths splits an updateMask into snake_case field paths. The REST clients send the protobuf JSON form
// of a FieldMask (lowerCamelCase, "fileShares"); hand-written calls often use the proto names ("file_shares").
func MaskPaths(mask string) []string {
	var out []string
	for _, p := range strings.Split(mask, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, snake(p))
		}
	}
	return out
}

func snake(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsUpper(r) {
			b.WriteByte('_')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Backing keeps the directories that stand for producer file systems under one root. A zero Backing (no
// root) keeps none: every method does nothing and Dir reports false.
type Backing struct {
	Root string
}

// Dir is the directory of the relative path rel under the root.
func (b Backing) Dir(rel ...string) (string, bool) {
	if b.Root == "" {
		return "", false
	}
	return filepath.Join(append([]string{b.Root}, rel...)...), true
}

// Ensure creates the directory rel (and its parents).
func (b Backing) Ensure(rel ...string) error {
	dir, ok := b.Dir(rel...)
	if !ok {
		return nil
	}
	// 0755 like the root of a new Filestore share or Lustre file system (owned by root there, by the
	// emulator's user here).
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the backing directory of the file system: %w", err)
	}
	return nil
}

// Remove deletes the directory rel and everything in it, then the parents it leaves empty (up to the root).
func (b Backing) Remove(rel ...string) error {
	dir, ok := b.Dir(rel...)
	if !ok {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for p := filepath.Dir(dir); p != b.Root && strings.HasPrefix(p, b.Root); p = filepath.Dir(p) {
		if os.Remove(p) != nil {
			break
		}
	}
	return nil
}

// JoinSubpath appends the part of a mount source after the export (an NFS "IP:/share/sub/dir") to dir,
// refusing paths that climb out of it.
func JoinSubpath(dir, sub string) (string, bool) {
	sub = strings.Trim(sub, "/")
	if sub == "" {
		return dir, true
	}
	clean := filepath.Clean(sub)
	if clean == ".." || strings.HasPrefix(clean, "../") || filepath.IsAbs(clean) {
		return "", false
	}
	return filepath.Join(dir, clean), true
}

// StorageStockout reports whether a stockout fault names the producer product ("filestore/ZONAL",
// "lustre/500") in location. Only stockouts with a machineType pattern count ("filestore/*", "lustre/*",
// "*/*"), so a zone-wide Compute stockout leaves storage alone.
func StorageStockout(f *core.Faults, location, product string) bool {
	for _, so := range f.Spec().Stockouts {
		if so.MachineType != "" && globMatch(so.Zone, location) && globMatch(so.MachineType, product) {
			return true
		}
	}
	return false
}

func globMatch(pattern, name string) bool {
	if pattern == name {
		return true
	}
	ok, _ := path.Match(pattern, name)
	return ok
}

// StockoutError is the operation error of a producer instance a location has no capacity for: it carries
// the wording Compute uses, which the provider recognises as a stockout.
func StockoutError(project, location string) *core.OpError {
	scope := "zone"
	if catalog.IsRegion(location) {
		scope = "region"
	}
	return core.NewOpError(http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", fmt.Sprintf(
		"The %s 'projects/%s/%ss/%s' does not have enough resources available to fulfill the request. Try a different %s, or try again later.",
		scope, project, scope, location, scope))
}
