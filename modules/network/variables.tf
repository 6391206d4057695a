variable "name" {
  description = "Name of the VPC; also the prefix of everything it owns (`<name>-subnet`, `<name>-router`, `<name>-psa`, `<name>-gpu-<i>`)."
  type        = string

  validation {
    condition     = can(regex("^[a-z]([-a-z0-9]{0,46}[a-z0-9])?$", var.name))
    error_message = "The name must be 1-48 lowercase letters, digits or hyphens, start with a letter and not end with a hyphen."
  }
}

variable "project" {
  description = "Project ID. Null uses the provider's project."
  type        = string
  default     = null
}

variable "region" {
  description = "Region of the subnet, Cloud Router and Cloud NAT. Null uses the provider's region."
  type        = string
  default     = null
}

variable "description" {
  description = "Description of the VPC."
  type        = string
  default     = "Training cluster network managed by Terraform."
}

variable "subnet_cidr" {
  description = "Primary IPv4 range of the cluster subnet, a private CIDR between /8 and /29 (e.g. 10.0.0.0/20)."
  type        = string
  default     = "10.0.0.0/20"

  validation {
    condition     = can(cidrhost(var.subnet_cidr, 0)) && can(regex("/([89]|1[0-9]|2[0-9])$", var.subnet_cidr))
    error_message = "The subnet CIDR must be an IPv4 range with a prefix length between /8 and /29, such as 10.0.0.0/20."
  }
}

variable "mtu" {
  description = "MTU of the VPC. 8896 suits Managed Lustre and GPU-to-GPU traffic."
  type        = number
  default     = 8896

  validation {
    condition     = var.mtu >= 1300 && var.mtu <= 8896 && floor(var.mtu) == var.mtu
    error_message = "The MTU must be a whole number between 1300 and 8896."
  }
}

variable "private_service_access" {
  description = "Reserve a range for private service access (needed by Filestore in PSA mode and by Managed Lustre). Null disables it; address null lets Google choose the range."
  type = object({
    prefix_length = optional(number, 20)
    address       = optional(string)
  })
  default = {}

  validation {
    condition     = var.private_service_access == null || try(var.private_service_access.prefix_length >= 8 && var.private_service_access.prefix_length <= 24, false)
    error_message = "The private service access prefix length must be between 8 and 24; Managed Lustre wants at least a /20."
  }

  validation {
    condition     = try(var.private_service_access.address, null) == null || can(cidrhost("${try(var.private_service_access.address, "")}/32", 0))
    error_message = "The private service access address must be an IPv4 address such as 10.64.0.0."
  }
}

variable "enable_nat" {
  description = "Create a Cloud Router and Cloud NAT so VMs without public IPs reach package mirrors and registries."
  type        = bool
  default     = true
}

variable "enable_iap_ssh" {
  description = "Allow SSH only from Identity-Aware Proxy's range; no other ingress from outside the VPC is ever opened."
  type        = bool
  default     = true
}

variable "gpu_networks" {
  description = "The extra VPCs a GPU NIC stack needs: stack tcpx (A3 High, 4 VPCs), tcpxo (A3 Mega, 8 VPCs) or rdma (A3 Ultra, A4, A4X: one RoCE VPC with subnet_count subnets in zone). subnet_prefix_length sizes every GPU subnet: each GPU node takes one address in each, and a /p holds 2^(32-p) - 4 nodes (null: /24, 252 nodes; /21: 2,044). A larger subnet is applied in place; a smaller one is refused. Null creates none."
  type = object({
    stack                = string
    cidr                 = optional(string)
    subnet_count         = optional(number, 8)
    zone                 = optional(string)
    subnet_prefix_length = optional(number)
  })
  default = null

  validation {
    condition     = var.gpu_networks == null || contains(["tcpx", "tcpxo", "rdma"], try(var.gpu_networks.stack, ""))
    error_message = "The GPU network stack must be one of tcpx, tcpxo or rdma."
  }

  validation {
    condition     = try(var.gpu_networks.subnet_count, 8) >= 1 && try(var.gpu_networks.subnet_count, 8) <= 8
    error_message = "The GPU network subnet count must be between 1 and 8, one per GPU NIC."
  }

  validation {
    condition     = try(var.gpu_networks.cidr, null) == null || can(cidrhost(try(var.gpu_networks.cidr, ""), 0))
    error_message = "The GPU network CIDR must be an IPv4 range such as 192.168.0.0/16."
  }

  validation {
    condition     = try(var.gpu_networks.subnet_prefix_length, null) == null || try(var.gpu_networks.subnet_prefix_length >= 8 && var.gpu_networks.subnet_prefix_length <= 29 && floor(var.gpu_networks.subnet_prefix_length) == var.gpu_networks.subnet_prefix_length, false)
    error_message = "The GPU subnet prefix length must be a whole number between 8 and 29, such as 21 for 2,044 nodes per GPU subnet."
  }

  validation {
    condition     = try(var.gpu_networks.zone, null) == null || try(var.gpu_networks.stack, "") == "rdma"
    error_message = "The GPU network zone only applies to the rdma stack, whose network profile is per zone."
  }
}
