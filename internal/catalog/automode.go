package catalog

// autoModeRanges is Google's auto-mode IPv4 plan (VPC docs, "Auto mode IPv4 ranges"; the same ranges a real
// project's auto-mode network lists): an auto-mode network gets one subnet per region with that region's fixed
// /20 from 10.128.0.0/9. TestAutoModeRanges keeps it in step with the catalog's regions.
var autoModeRanges = map[string]string{
	"us-central1":             "10.128.0.0/20",
	"europe-west1":            "10.132.0.0/20",
	"us-west1":                "10.138.0.0/20",
	"asia-east1":              "10.140.0.0/20",
	"us-east1":                "10.142.0.0/20",
	"asia-northeast1":         "10.146.0.0/20",
	"asia-southeast1":         "10.148.0.0/20",
	"us-east4":                "10.150.0.0/20",
	"australia-southeast1":    "10.152.0.0/20",
	"europe-west2":            "10.154.0.0/20",
	"europe-west3":            "10.156.0.0/20",
	"southamerica-east1":      "10.158.0.0/20",
	"asia-south1":             "10.160.0.0/20",
	"northamerica-northeast1": "10.162.0.0/20",
	"europe-west4":            "10.164.0.0/20",
	"europe-north1":           "10.166.0.0/20",
	"us-west2":                "10.168.0.0/20",
	"asia-east2":              "10.170.0.0/20",
	"europe-west6":            "10.172.0.0/20",
	"asia-northeast2":         "10.174.0.0/20",
	"asia-northeast3":         "10.178.0.0/20",
	"us-west3":                "10.180.0.0/20",
	"us-west4":                "10.182.0.0/20",
	"asia-southeast2":         "10.184.0.0/20",
	"europe-central2":         "10.186.0.0/20",
	"northamerica-northeast2": "10.188.0.0/20",
	"asia-south2":             "10.190.0.0/20",
	"australia-southeast2":    "10.192.0.0/20",
	"southamerica-west1":      "10.194.0.0/20",
	"europe-west8":            "10.198.0.0/20",
	"europe-west9":            "10.200.0.0/20",
	"us-east5":                "10.202.0.0/20",
	"europe-southwest1":       "10.204.0.0/20",
	"us-south1":               "10.206.0.0/20",
	"me-west1":                "10.208.0.0/20",
	"europe-west12":           "10.210.0.0/20",
	"me-central1":             "10.212.0.0/20",
	"europe-west10":           "10.214.0.0/20",
	"africa-south1":           "10.218.0.0/20",
	"northamerica-south1":     "10.224.0.0/20",
	"europe-north2":           "10.226.0.0/20",
}

// AutoModeSubnetRange is the range of the subnet an auto-mode network gets in region.
func AutoModeSubnetRange(region string) (string, bool) {
	r, ok := autoModeRanges[region]
	return r, ok
}
