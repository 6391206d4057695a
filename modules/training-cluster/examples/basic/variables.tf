variable "project_id" {
  description = "Project to create the cluster in."
  type        = string
}

variable "agent" {
  description = "Node agent build (url and sha256); null uses the build released with the provider."
  type = object({
    url    = string
    sha256 = string
  })
  default = null
}
