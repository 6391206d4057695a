package emulator

import (
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/compute"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/filestore"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/lustre"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/metadata"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/monitoring"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/servicenetworking"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/storage"
)

// services are the emulated APIs. Each registers its routes and hooks on the shared core.Server; adding an API
// is one line here (see doc.go).
var services = []func(*core.Server){
	compute.Register,
	func(s *core.Server) { metadata.Register(s, instances.Register(s)) },
	func(s *core.Server) { servicenetworking.Register(s) },
	func(s *core.Server) { filestore.Register(s, filestore.Options{}) },
	func(s *core.Server) { lustre.Register(s, lustre.Options{}) },
	func(s *core.Server) { storage.Register(s) },
	func(s *core.Server) { monitoring.Register(s) },
}
