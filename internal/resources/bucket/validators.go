package bucket

import (
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

func nameValidator() validator.String {
	return tfutil.StringCheck{Desc: "a Cloud Storage bucket name", Check: catalog.ValidateBucketName}
}

func locationValidator() validator.String {
	return tfutil.StringCheck{Desc: "a Cloud Storage location: region, dual-region or multi-region", Check: catalog.ValidateBucketLocation}
}

func storageClassValidator() validator.String {
	return tfutil.StringCheck{Desc: "a storage class", Check: catalog.ValidateBucketStorageClass}
}
