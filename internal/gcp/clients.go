package gcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	compute "cloud.google.com/go/compute/apiv1"
	filestore "cloud.google.com/go/filestore/apiv1"
	dashboards "google.golang.org/api/monitoring/v1"
	monitoring "google.golang.org/api/monitoring/v3"
	"google.golang.org/api/option"
	"google.golang.org/api/servicenetworking/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

// Clients holds one client per API, all sending through HTTPClient.
type Clients struct {
	// Config is the configuration the clients were built from.
	Config Config
	// HTTPClient is shared by every client: retries, User-Agent and auth live in it.
	HTTPClient *http.Client
	// Transport is HTTPClient's retry layer; its Stats count requests and retries.
	Transport *RetryTransport

	Networks                *compute.NetworksClient
	Subnetworks             *compute.SubnetworksClient
	Firewalls               *compute.FirewallsClient
	Routers                 *compute.RoutersClient
	GlobalAddresses         *compute.GlobalAddressesClient
	Instances               *compute.InstancesClient
	RegionInstances         *compute.RegionInstancesClient
	InstanceTemplates       *compute.InstanceTemplatesClient
	RegionInstanceTemplates *compute.RegionInstanceTemplatesClient
	ResourcePolicies        *compute.ResourcePoliciesClient
	Reservations            *compute.ReservationsClient
	FutureReservations      *compute.FutureReservationsClient
	MachineTypes            *compute.MachineTypesClient
	Images                  *compute.ImagesClient
	Zones                   *compute.ZonesClient
	Regions                 *compute.RegionsClient
	Projects                *compute.ProjectsClient
	ZoneOperations          *compute.ZoneOperationsClient
	RegionOperations        *compute.RegionOperationsClient
	GlobalOperations        *compute.GlobalOperationsClient

	Filestore         *filestore.CloudFilestoreManagerClient
	ServiceNetworking *servicenetworking.APIService
	Lustre            *lustre.Client
	// Monitoring is Cloud Monitoring v3 (time series, metric descriptors, alert policies); Dashboards
	// is the Monitoring Dashboards API v1.
	Monitoring *monitoring.Service
	Dashboards *dashboards.Service

	poll    PollConfig
	closers []interface{ Close() error }
	base    http.RoundTripper
}

// NewClients builds every client on one shared, retrying, authenticated HTTP client.
// With cfg.EmulatorHost the clients talk plain HTTP to the local cloud without auth.
func NewClients(ctx context.Context, cfg Config) (*Clients, error) {
	base := cfg.BaseTransport
	if base == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 100
		base = t
	}
	authed, err := authTransport(ctx, cfg, base)
	if err != nil {
		return nil, err
	}
	rt := &RetryTransport{Next: authed, UserAgent: cfg.userAgent(), Policy: cfg.retryConfig()}
	c := &Clients{
		Config:     cfg,
		HTTPClient: &http.Client{Transport: rt},
		Transport:  rt,
		poll:       cfg.pollConfig(),
		base:       base,
	}
	if err := c.build(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Clients) build(ctx context.Context) error {
	at := func(endpoint string) []option.ClientOption {
		return []option.ClientOption{option.WithHTTPClient(c.HTTPClient), option.WithEndpoint(endpoint)}
	}
	computeOpts := at(c.Config.computeEndpoint())

	var err error
	// The generated clients retry some calls on their own (up to 10 minutes for a
	// Compute GET on 503); the shared transport already retries within its bounds,
	// so their call options are cleared and the caller's context sets the deadlines.
	if c.Networks, err = newClient(c, ctx, compute.NewNetworksRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.Networks.CallOptions)
	if c.Subnetworks, err = newClient(c, ctx, compute.NewSubnetworksRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.Subnetworks.CallOptions)
	if c.Firewalls, err = newClient(c, ctx, compute.NewFirewallsRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.Firewalls.CallOptions)
	if c.Routers, err = newClient(c, ctx, compute.NewRoutersRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.Routers.CallOptions)
	if c.GlobalAddresses, err = newClient(c, ctx, compute.NewGlobalAddressesRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.GlobalAddresses.CallOptions)
	if c.Instances, err = newClient(c, ctx, compute.NewInstancesRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.Instances.CallOptions)
	if c.RegionInstances, err = newClient(c, ctx, compute.NewRegionInstancesRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.RegionInstances.CallOptions)
	if c.InstanceTemplates, err = newClient(c, ctx, compute.NewInstanceTemplatesRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.InstanceTemplates.CallOptions)
	if c.RegionInstanceTemplates, err = newClient(c, ctx, compute.NewRegionInstanceTemplatesRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.RegionInstanceTemplates.CallOptions)
	if c.ResourcePolicies, err = newClient(c, ctx, compute.NewResourcePoliciesRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.ResourcePolicies.CallOptions)
	if c.Reservations, err = newClient(c, ctx, compute.NewReservationsRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.Reservations.CallOptions)
	if c.FutureReservations, err = newClient(c, ctx, compute.NewFutureReservationsRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.FutureReservations.CallOptions)
	if c.MachineTypes, err = newClient(c, ctx, compute.NewMachineTypesRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.MachineTypes.CallOptions)
	if c.Images, err = newClient(c, ctx, compute.NewImagesRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.Images.CallOptions)
	if c.Zones, err = newClient(c, ctx, compute.NewZonesRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.Zones.CallOptions)
	if c.Regions, err = newClient(c, ctx, compute.NewRegionsRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.Regions.CallOptions)
	if c.Projects, err = newClient(c, ctx, compute.NewProjectsRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.Projects.CallOptions)
	if c.ZoneOperations, err = newClient(c, ctx, compute.NewZoneOperationsRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.ZoneOperations.CallOptions)
	if c.RegionOperations, err = newClient(c, ctx, compute.NewRegionOperationsRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.RegionOperations.CallOptions)
	if c.GlobalOperations, err = newClient(c, ctx, compute.NewGlobalOperationsRESTClient, computeOpts); err != nil {
		return err
	}
	resetCallOptions(c.GlobalOperations.CallOptions)

	if c.Filestore, err = newClient(c, ctx, filestore.NewCloudFilestoreManagerRESTClient, at(c.Config.filestoreEndpoint())); err != nil {
		return err
	}
	resetCallOptions(c.Filestore.CallOptions)

	if c.ServiceNetworking, err = servicenetworking.NewService(ctx, at(c.Config.serviceNetworkingEndpoint())...); err != nil {
		return fmt.Errorf("service networking client: %w", err)
	}

	if c.Monitoring, err = monitoring.NewService(ctx, at(c.Config.monitoringEndpoint())...); err != nil {
		return fmt.Errorf("cloud monitoring client: %w", err)
	}
	if c.Dashboards, err = dashboards.NewService(ctx, at(c.Config.monitoringEndpoint())...); err != nil {
		return fmt.Errorf("monitoring dashboards client: %w", err)
	}

	if c.Lustre, err = newClient(c, ctx, lustre.NewClient, at(c.Config.lustreEndpoint())); err != nil {
		return err
	}
	c.Lustre.PollInitial, c.Lustre.PollMax, c.Lustre.PollMultiplier = c.poll.Initial, c.poll.Max, c.poll.Multiplier
	return nil
}

// newClient calls a client constructor and remembers the client for Close.
func newClient[T interface{ Close() error }](c *Clients, ctx context.Context,
	ctor func(context.Context, ...option.ClientOption) (T, error), opts []option.ClientOption) (T, error) {
	cl, err := ctor(ctx, opts...)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("building %T: %w", zero, err)
	}
	c.closers = append(c.closers, cl)
	return cl, nil
}

// resetCallOptions sets a generated client's CallOptions to none.
func resetCallOptions[T any](p *T) {
	var zero T
	*p = zero
}

// Close closes every client and the shared transport's idle connections.
func (c *Clients) Close() error {
	var errs []error
	for _, cl := range c.closers {
		if err := cl.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	c.closers = nil
	if t, ok := c.base.(interface{ CloseIdleConnections() }); ok {
		t.CloseIdleConnections()
	}
	return errors.Join(errs...)
}

// Stats returns the shared transport's counters.
func (c *Clients) Stats() TransportStats { return c.Transport.Stats() }
