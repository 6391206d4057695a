package catalog

// autoModeRanges is Google's published auto-mode IPv4 plan (VPC docs, "Auto mode IPv4 ranges"): an auto-mode
// network gets one subnet per region with that region's fixed /20 from 10.128.0.0/9. Only the catalog's
// regions are listed; TestAutoModeRanges keeps the two in step.
var autoModeRanges = map[string]string{
	"us-central1":     "10.128.0.0/20",
	"europe-west1":    "10.132.0.0/20",
	"us-west1":        "10.138.0.0/20",
	"us-east1":        "10.142.0.0/20",
	"asia-northeast1": "10.146.0.0/20",
	"asia-southeast1": "10.148.0.0/20",
	"us-east4":        "10.150.0.0/20",
	"europe-west4":    "10.164.0.0/20",
	"us-west4":        "10.182.0.0/20",
	"us-east5":        "10.202.0.0/20",
}

// AutoModeSubnetRange is the range of the subnet an auto-mode network gets in region.
func AutoModeSubnetRange(region string) (string, bool) {
	r, ok := autoModeRanges[region]
	return r, ok
}
