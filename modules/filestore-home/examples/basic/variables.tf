variable "project_id" {
  description = "Project to create the network in."
  type        = string
}
