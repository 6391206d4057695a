package slurm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// Ping asks slurmrestd whether slurmctld answers. It fails when no
// controller responds.
func (c *Client) Ping(ctx context.Context) (*PingResult, error) {
	a, prefix, err := c.versioned(ctx)
	if err != nil {
		return nil, err
	}
	const op = "ping"
	body, err := c.call(ctx, op, http.MethodGet, prefix+"/ping", nil)
	if err != nil {
		return nil, err
	}
	ctls, err := a.decodePing(body)
	if err != nil {
		return nil, decodeErr(op, err)
	}
	var env envelope
	_ = json.Unmarshal(body, &env)
	res := &PingResult{APIVersion: a.version(), SlurmRelease: env.Meta.Slurm.Release, Controllers: ctls}
	if v := env.pluginVersion(); v != "" {
		res.APIVersion = v
	}
	for _, ctl := range ctls {
		if ctl.Responding {
			return res, nil
		}
	}
	return res, fmt.Errorf("slurm: ping: no slurmctld responding (%+v)", ctls)
}

// SubmitJob submits a batch job and returns its id.
func (c *Client) SubmitJob(ctx context.Context, spec JobSpec) (int, error) {
	const op = "submit job"
	p, err := prepareSpec(spec)
	if err != nil {
		return 0, err
	}
	a, prefix, err := c.versioned(ctx)
	if err != nil {
		return 0, err
	}
	req, err := a.submitBody(p)
	if err != nil {
		return 0, err
	}
	body, err := c.call(ctx, op, http.MethodPost, prefix+"/job/submit", req)
	if err != nil {
		return 0, err
	}
	var r submitReply
	if err := json.Unmarshal(body, &r); err != nil {
		return 0, decodeErr(op, err)
	}
	if r.JobID == nil || *r.JobID <= 0 {
		return 0, fmt.Errorf("slurm: submit job: reply has no job id: %s", snippet(body))
	}
	return *r.JobID, nil
}

// GetJob returns one job. An unknown (or already purged) job is an error
// for which IsNotFound is true.
func (c *Client) GetJob(ctx context.Context, id int) (*Job, error) {
	const op = "get job"
	a, prefix, err := c.versioned(ctx)
	if err != nil {
		return nil, err
	}
	path := prefix + "/job/" + strconv.Itoa(id)
	body, err := c.call(ctx, op, http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	jobs, err := a.decodeJobs(body)
	if err != nil {
		return nil, decodeErr(op, err)
	}
	for i := range jobs {
		if jobs[i].ID == id {
			return &jobs[i], nil
		}
	}
	return nil, &APIError{Op: op, Method: http.MethodGet, Path: path, HTTPStatus: http.StatusOK,
		Errors: []ErrorEntry{{Number: ErrnoInvalidJobID, Error: "Invalid job id specified",
			Description: fmt.Sprintf("reply lists no job %d", id), Source: "client"}}}
}

// ListJobs returns every job slurmctld still knows.
func (c *Client) ListJobs(ctx context.Context) ([]Job, error) {
	const op = "list jobs"
	a, prefix, err := c.versioned(ctx)
	if err != nil {
		return nil, err
	}
	body, err := c.call(ctx, op, http.MethodGet, prefix+"/jobs", nil)
	if err != nil {
		return nil, err
	}
	jobs, err := a.decodeJobs(body)
	if err != nil {
		return nil, decodeErr(op, err)
	}
	return jobs, nil
}

// CancelJob cancels a job. Cancelling a job that already ended succeeds; an
// unknown job is an error for which IsNotFound is true.
func (c *Client) CancelJob(ctx context.Context, id int) error {
	_, prefix, err := c.versioned(ctx)
	if err != nil {
		return err
	}
	_, err = c.call(ctx, "cancel job", http.MethodDelete, prefix+"/job/"+strconv.Itoa(id), nil)
	if HasErrorNumber(err, ErrnoAlreadyDone) {
		return nil
	}
	return err
}

// ListNodes returns every node.
func (c *Client) ListNodes(ctx context.Context) ([]Node, error) {
	return c.nodes(ctx, "list nodes", "/nodes")
}

// GetNode returns one node; IsNotFound is true for an unknown name.
func (c *Client) GetNode(ctx context.Context, name string) (*Node, error) {
	nodes, err := c.nodes(ctx, "get node", "/node/"+url.PathEscape(name))
	if err != nil {
		return nil, err
	}
	for i := range nodes {
		if nodes[i].Name == name {
			return &nodes[i], nil
		}
	}
	return nil, &APIError{Op: "get node", Method: http.MethodGet, Path: "/node/" + name,
		HTTPStatus: http.StatusOK, Errors: []ErrorEntry{{Number: ErrnoInvalidNodeName,
			Error: "Invalid node name specified", Description: "reply lists no node " + name, Source: "client"}}}
}

func (c *Client) nodes(ctx context.Context, op, sub string) ([]Node, error) {
	a, prefix, err := c.versioned(ctx)
	if err != nil {
		return nil, err
	}
	body, err := c.call(ctx, op, http.MethodGet, prefix+sub, nil)
	if err != nil {
		return nil, err
	}
	nodes, err := a.decodeNodes(body)
	if err != nil {
		return nil, decodeErr(op, err)
	}
	return nodes, nil
}

// ListPartitions returns every partition.
func (c *Client) ListPartitions(ctx context.Context) ([]Partition, error) {
	const op = "list partitions"
	a, prefix, err := c.versioned(ctx)
	if err != nil {
		return nil, err
	}
	body, err := c.call(ctx, op, http.MethodGet, prefix+"/partitions", nil)
	if err != nil {
		return nil, err
	}
	parts, err := a.decodePartitions(body)
	if err != nil {
		return nil, decodeErr(op, err)
	}
	return parts, nil
}

// UpdateNode changes a node's state (drain, resume, down, power down, ...).
// On v0.0.38 it returns an error matching ErrUnsupported without calling the
// server; the caller then uses UpdateNodeScontrol.
func (c *Client) UpdateNode(ctx context.Context, name string, u NodeUpdate) error {
	state, err := u.validate()
	if err != nil {
		return err
	}
	a, prefix, err := c.versioned(ctx)
	if err != nil {
		return err
	}
	req, err := a.nodeUpdateBody(state, u.Reason, c.user)
	if err != nil {
		return err
	}
	_, err = c.call(ctx, "update node", http.MethodPost, prefix+"/node/"+url.PathEscape(name), req)
	return err
}

func decodeErr(op string, err error) error {
	return fmt.Errorf("slurm: %s: decode reply: %w", op, err)
}
