package filestore

import (
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

func nameValidator() validator.String {
	return tfutil.StringCheck{Desc: "an instance ID: RFC 1035, 1-63 characters", Check: catalog.ValidateResourceName}
}
