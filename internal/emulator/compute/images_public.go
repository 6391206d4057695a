package compute

import (
	"fmt"
	"sort"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// publicFamily is one image family a Google-owned image project publishes. Each family is served with one
// current image (Google keeps older ones deprecated; nobody here asks for them).
type publicFamily struct {
	project, family, image, description, arch string
	sizeGb                                    int64
}

// googleOSFamilies are the public OS families users name for controllers and login nodes (public Compute "OS
// images" page). Image names follow Google's scheme (family, codename, build date); the build date is fixed so
// answers are stable. The images of GPU machine types come from internal/catalog (catalogFamilies).
var googleOSFamilies = []publicFamily{
	{"debian-cloud", "debian-12", "debian-12-bookworm-v20250610", "Debian, Debian GNU/Linux, 12 (bookworm), amd64 built on 20250610", "X86_64", 10},
	{"debian-cloud", "debian-12-arm64", "debian-12-bookworm-arm64-v20250610", "Debian, Debian GNU/Linux, 12 (bookworm), arm64 built on 20250610", "ARM64", 10},
	{"debian-cloud", "debian-11", "debian-11-bullseye-v20250610", "Debian, Debian GNU/Linux, 11 (bullseye), amd64 built on 20250610", "X86_64", 10},
	{"ubuntu-os-cloud", "ubuntu-2204-lts", "ubuntu-2204-jammy-v20250610", "Canonical, Ubuntu, 22.04 LTS, amd64 jammy image built on 2025-06-10", "X86_64", 10},
	{"ubuntu-os-cloud", "ubuntu-2204-lts-arm64", "ubuntu-2204-jammy-arm64-v20250610", "Canonical, Ubuntu, 22.04 LTS, arm64 jammy image built on 2025-06-10", "ARM64", 10},
	{"ubuntu-os-cloud", "ubuntu-2404-lts-amd64", "ubuntu-2404-noble-amd64-v20250610", "Canonical, Ubuntu, 24.04 LTS, amd64 noble image built on 2025-06-10", "X86_64", 10},
	{"ubuntu-os-cloud", "ubuntu-2404-lts-arm64", "ubuntu-2404-noble-arm64-v20250610", "Canonical, Ubuntu, 24.04 LTS, arm64 noble image built on 2025-06-10", "ARM64", 10},
}

// googleFamilyAliases are family names Google also answers for another family (ubuntu-2404-lts is the older
// name of ubuntu-2404-lts-amd64).
var googleFamilyAliases = map[string]string{"ubuntu-os-cloud/ubuntu-2404-lts": "ubuntu-2404-lts-amd64"}

// catalogFamilies are the images the catalog pins for its machine types (the accelerator images with their
// driver), so every image the provider defaults to resolves.
func catalogFamilies() []publicFamily {
	seen := map[string]bool{}
	var out []publicFamily
	for _, m := range catalog.Machines() {
		key := m.ImageProject + "/" + m.ImageFamily
		if m.ImageFamily == "" || seen[key] || isOSFamily(m.ImageProject, m.ImageFamily) {
			continue
		}
		seen[key] = true
		arch := "X86_64"
		if m.Arch == catalog.ArchARM {
			arch = "ARM64"
		}
		out = append(out, publicFamily{
			project: m.ImageProject, family: m.ImageFamily, image: m.ImageFamily + "-v20250610",
			description: "Image family " + m.ImageFamily + " built on 20250610", arch: arch, sizeGb: 10,
		})
	}
	return out
}

func isOSFamily(project, family string) bool {
	for _, f := range googleOSFamilies {
		if f.project == project && f.family == family {
			return true
		}
	}
	return false
}

// publicFamilies is every public family, sorted by project and image name.
func publicFamilies() []publicFamily {
	all := append(append([]publicFamily(nil), googleOSFamilies...), catalogFamilies()...)
	sort.Slice(all, func(i, j int) bool {
		if all[i].project != all[j].project {
			return all[i].project < all[j].project
		}
		return all[i].image < all[j].image
	})
	return all
}

// isPublicImageProject reports whether images of project are Google's (read-only, not in the store).
func isPublicImageProject(project string) bool {
	for _, f := range publicFamilies() {
		if f.project == project {
			return true
		}
	}
	return strings.HasSuffix(project, "-cloud") || project == "ubuntu-os-accelerator-images"
}

func (f publicFamily) resource() *computepb.Image {
	key := fmt.Sprintf("projects/%s/global/images/%s", f.project, f.image)
	return &computepb.Image{
		Kind:              proto.String("compute#image"),
		Id:                proto.Uint64(catalogID(key)),
		CreationTimestamp: proto.String("2025-06-10T00:00:00.000-07:00"),
		Name:              proto.String(f.image),
		Description:       proto.String(f.description),
		Family:            proto.String(f.family),
		SelfLink:          proto.String(core.SelfLink(key)),
		SourceType:        proto.String("RAW"),
		RawDisk:           &computepb.RawDisk{Source: proto.String(""), ContainerType: proto.String("TAR")},
		Status:            proto.String("READY"),
		DiskSizeGb:        proto.Int64(f.sizeGb),
		ArchiveSizeBytes:  proto.Int64(f.sizeGb << 28),
		Architecture:      proto.String(f.arch),
		Licenses:          []string{core.SelfLink(fmt.Sprintf("projects/%s/global/licenses/%s", f.project, f.family))},
		LabelFingerprint:  proto.String("42WmSpB8rSM="),
		GuestOsFeatures: []*computepb.GuestOsFeature{
			{Type: proto.String("UEFI_COMPATIBLE")}, {Type: proto.String("VIRTIO_SCSI_MULTIQUEUE")}, {Type: proto.String("GVNIC")},
		},
		StorageLocations: []string{"asia", "eu", "us"},
		SatisfiesPzi:     proto.Bool(false),
	}
}

// publicImage looks a public image up by name.
func publicImage(project, name string) (*computepb.Image, bool) {
	for _, f := range publicFamilies() {
		if f.project == project && f.image == name {
			return f.resource(), true
		}
	}
	return nil, false
}

// publicFamilyImage is the current image of a public family.
func publicFamilyImage(project, family string) (*computepb.Image, bool) {
	if alias, ok := googleFamilyAliases[project+"/"+family]; ok {
		family = alias
	}
	for _, f := range publicFamilies() {
		if f.project == project && f.family == family {
			return f.resource(), true
		}
	}
	return nil, false
}

func publicImages(project string) []*computepb.Image {
	var out []*computepb.Image
	for _, f := range publicFamilies() {
		if f.project == project {
			out = append(out, f.resource())
		}
	}
	return out
}
