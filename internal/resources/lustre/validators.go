package lustre

import (
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

func nameValidator() validator.String {
	return tfutil.StringCheck{Desc: "an instance ID: RFC 1035, 1-63 characters", Check: catalog.ValidateLustreInstanceID}
}

func zoneValidator() validator.String {
	return tfutil.StringCheck{Desc: "a zone", Check: catalog.ValidateZone}
}

func filesystemValidator() validator.String {
	return tfutil.StringCheck{Desc: "1-8 letters or digits", Check: catalog.ValidateLustreFilesystem}
}
