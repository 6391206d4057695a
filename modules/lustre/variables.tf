variable "name" {
  description = "Managed Lustre instance ID. It cannot be changed once created."
  type        = string
}

variable "project" {
  description = "Project ID. Null uses the provider's project."
  type        = string
  default     = null
}

variable "zone" {
  description = "Zone of the instance; put it in the GPU nodes' zone. Null uses the provider's zone."
  type        = string
  default     = null
}

variable "network" {
  description = "The cluster VPC, which must have private service access: a hypercompute_network's name, ID or self link (the network module's name output)."
  type        = string

  validation {
    condition     = length(var.network) > 0
    error_message = "The network must name the cluster VPC."
  }
}

variable "filesystem" {
  description = "Lustre file system name; part of the mount source. Cannot be changed."
  type        = string
  default     = "lustrefs"
}

variable "per_unit_storage_throughput" {
  description = "Throughput tier in MBps per TiB (the provider lists the tiers it accepts). Cannot be changed."
  type        = number
  default     = 1000
}

variable "capacity_gib" {
  description = "Capacity in GiB within the throughput tier's range and steps, which the provider checks at plan. Grows in place, never shrinks."
  type        = number
  default     = 36000
}

variable "deletion_protection" {
  description = "Refuse to destroy the instance (enforced by the provider; the API has no such setting). Keep it on for checkpoints and datasets."
  type        = bool
  default     = true
}

variable "description" {
  description = "Description of the instance."
  type        = string
  default     = "Training cluster datasets and checkpoints, managed by Terraform."
}

variable "labels" {
  description = "Labels of the instance, added to the provider's default labels."
  type        = map(string)
  default     = {}
}
