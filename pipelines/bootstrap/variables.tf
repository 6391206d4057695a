variable "project_id" {
  description = "Project that owns the state bucket (usually the environment's own project, so its state stays with what it describes)."
  type        = string
}

variable "bucket_name" {
  description = "Name of the state bucket, the bucket of the environment's backend/<env>.hcl. Bucket names are global across Cloud Storage."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9][-a-z0-9_]{1,61}[a-z0-9]$", var.bucket_name))
    error_message = "The bucket name must be 3-63 lowercase letters, digits, hyphens or underscores, starting and ending with a letter or digit."
  }
}

variable "location" {
  description = "Where the state lives: a region such as us-central1, or a multi-region such as US."
  type        = string
  default     = "us-central1"
}
