package clusterconfig

// Cloud is where and how the cluster's VMs run on Compute Engine: the facts hypercompute_training_cluster
// was configured with that are not Slurm settings. They live in the cluster's config so that partitions
// (and the controller's power saving) create nodes in the same network with the same identity, and so
// that importing a cluster needs nothing but its name. None of it is rendered into Slurm's files, so it
// never changes Hash.
type Cloud struct {
	Project string `json:"project"`
	Zone    string `json:"zone"`
	// Network and Subnet are Compute self links.
	Network string `json:"network"`
	Subnet  string `json:"subnet"`
	// ServiceAccount and Scopes are the cluster's shared identity as configured (`service_account`):
	// "default" is the project's Compute Engine default service account. A cluster written before
	// Identities ran every VM as exactly this.
	ServiceAccount string   `json:"service_account,omitempty"`
	Scopes         []string `json:"scopes,omitempty"`
	// Identities are the resolved identity of each role; nil in a cluster written before them.
	Identities *Identities `json:"identities,omitempty"`
	PublicIPs  bool        `json:"public_ips,omitempty"`
	ShieldedVM bool        `json:"shielded_vm,omitempty"`
	OSLogin    bool        `json:"os_login,omitempty"`
	// Labels are the user's labels of the cluster's VMs (without the product's own).
	Labels     map[string]string `json:"labels,omitempty"`
	Controller VMShape           `json:"controller"`
	Login      VMShape           `json:"login"`
	// LoginZone, LoginLabels, LoginPublicIP and LoginOSLogin are the login VMs' own options; unset
	// means the cluster's (Zone, Labels, PublicIPs, OSLogin), so a cluster without them keeps its JSON.
	LoginZone     string            `json:"login_zone,omitempty"`
	LoginLabels   map[string]string `json:"login_labels,omitempty"`
	LoginPublicIP *bool             `json:"login_public_ip,omitempty"`
	LoginOSLogin  *bool             `json:"login_os_login,omitempty"`
	// LoginPools are further groups of login VMs, each with options of its own.
	LoginPools []LoginPool `json:"login_pools,omitempty"`
	// HomeFilestore and LustreInstance name the Filestore and Managed Lustre instances the mounts were
	// resolved from (full resource names); empty when the configuration gave a mount source directly.
	HomeFilestore  string `json:"home_filestore,omitempty"`
	LustreInstance string `json:"lustre_instance,omitempty"`
}

// VMShape is the machine, boot disk and image of a kind of VM.
type VMShape struct {
	MachineType string `json:"machine_type"`
	Image       string `json:"image"`
	DiskSizeGB  int    `json:"disk_size_gb"`
	DiskType    string `json:"disk_type"`
}

// Identity is a service account and the OAuth scopes a VM carries it with.
type Identity struct {
	Email  string   `json:"email"`
	Scopes []string `json:"scopes"`
}

// Identities are the identities of the cluster's roles: least privilege per role, so a token taken on a
// login VM cannot delete the cluster's nodes.
type Identities struct {
	Controller Identity `json:"controller"`
	Login      Identity `json:"login"`
	Compute    Identity `json:"compute"`
}

// Identity returns the identity of role's VMs: the resolved one, or for a cluster written before roles had
// their own, the shared one.
func (c *Cloud) Identity(role Role) Identity {
	if c.Identities != nil {
		switch role {
		case RoleController:
			return c.Identities.Controller
		case RoleLogin:
			return c.Identities.Login
		case RoleCompute:
			return c.Identities.Compute
		}
	}
	return Identity{Email: c.ServiceAccount, Scopes: c.Scopes}
}

// LoginPool is a group of login VMs besides the cluster's own (LoginPoolName), with the options a
// login block takes, all resolved.
type LoginPool struct {
	Name          string            `json:"name"`
	Count         int               `json:"count"`
	Shape         VMShape           `json:"shape"`
	Zone          string            `json:"zone"`
	Labels        map[string]string `json:"labels,omitempty"`
	PublicIP      bool              `json:"public_ip,omitempty"`
	OSLogin       bool              `json:"os_login,omitempty"`
	StartupScript string            `json:"startup_script,omitempty"`
}
