variable "project_id" {
  description = "Project to deploy the ml-dev environment into."
  type        = string
}

variable "region" {
  description = "Region of the cluster's subnet, router and NAT."
  type        = string
  default     = "us-central1"
}

variable "zone" {
  description = "Zone of the cluster's VMs and zonal storage."
  type        = string
  default     = "us-central1-a"
}

variable "name" {
  description = "Name of the environment; prefixes every resource."
  type        = string
  default     = "ml-dev"

  validation {
    condition     = can(regex("^[a-z]([-a-z0-9]{0,30}[a-z0-9])?$", var.name))
    error_message = "The name must be 1-32 lowercase letters, digits or hyphens, start with a letter and not end with a hyphen."
  }
}

variable "subnet_cidr" {
  description = "Primary range of the cluster subnet."
  type        = string
  default     = "10.0.0.0/20"
}

variable "home_capacity_gb" {
  description = "Capacity of the Filestore /home share in GB (ZONAL tier: 1024-9984 in steps of 256)."
  type        = number
  default     = 1024
}

variable "lustre_capacity_gib" {
  description = "Capacity of Managed Lustre for datasets and checkpoints in GiB (1000 MBps/TiB tier: multiples of 9000)."
  type        = number
  default     = 18000
}

variable "deletion_protection" {
  description = "Protect /home and Lustre from deletion. Keep true outside throw-away environments; the demo turns it off so it can destroy."
  type        = bool
  default     = true
}

variable "agent" {
  description = "Node agent build to run on the cluster's VMs: url (gs://BUCKET/OBJECT, https://, file:// or an absolute path) and its sha256. Leave null to use the build published with this provider release."
  type = object({
    url    = string
    sha256 = string
  })
  default = null
}

variable "login_count" {
  description = "Number of login VMs."
  type        = number
  default     = 1

  validation {
    condition     = var.login_count >= 0 && var.login_count <= 16
    error_message = "The login count must be between 0 and 16."
  }
}

variable "debug_nodes" {
  description = "Static CPU nodes of the debug partition (always running)."
  type        = number
  default     = 2

  validation {
    condition     = var.debug_nodes >= 0 && var.debug_nodes <= 64
    error_message = "The debug partition holds between 0 and 64 static nodes."
  }
}

variable "training_steps" {
  description = "Optimizer steps of the tiny-gpt training run on the debug partition."
  type        = number
  default     = 200

  validation {
    condition     = var.training_steps >= 1 && var.training_steps <= 100000
    error_message = "The training run takes between 1 and 100000 steps."
  }
}
