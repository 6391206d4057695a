package gcp

import (
	"context"
	"fmt"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
)

// ImageNotFoundError says that an image reference names no image: the image, or the family (no image in it),
// does not exist in the project. A wrong image is the most common reason nodes never join, so plans check
// images with ResolveImage and fail with this before anything is created.
type ImageNotFoundError struct {
	Ref     string // the reference as given
	Project string
	Name    string // image name, "" for a family
	Family  string // family name, "" for an image
	cause   error
}

func (e *ImageNotFoundError) Error() string {
	what := fmt.Sprintf("image %q", e.Name)
	if e.Family != "" {
		what = fmt.Sprintf("image family %q (no image in it)", e.Family)
	}
	return fmt.Sprintf("%s does not exist in project %s (from %q)", what, e.Project, e.Ref)
}

// Unwrap gives the API's own 404.
func (e *ImageNotFoundError) Unwrap() error { return e.cause }

// ParseImageRef splits an image reference — a URL, "projects/P/global/images/NAME",
// "projects/P/global/images/family/FAMILY", or the "global/images/..." forms in defaultProject — into its
// project and image name or family. Other forms are errors, as Compute answers them ("The URL is malformed").
func ParseImageRef(ref, defaultProject string) (project, name, family string, err error) {
	rel := ref
	if i := strings.Index(rel, "/compute/v1/"); i >= 0 {
		rel = rel[i+len("/compute/v1/"):]
	}
	if strings.HasPrefix(rel, "global/images/") {
		rel = "projects/" + defaultProject + "/" + rel
	}
	p := strings.Split(rel, "/")
	switch {
	case len(p) == 5 && p[0] == "projects" && p[1] != "" && p[2] == "global" && p[3] == "images" && p[4] != "" && p[4] != "family":
		return p[1], p[4], "", nil
	case len(p) == 6 && p[0] == "projects" && p[1] != "" && p[2] == "global" && p[3] == "images" && p[4] == "family" && p[5] != "":
		return p[1], "", p[5], nil
	}
	return "", "", "", fmt.Errorf("image %q is not an image reference; use projects/PROJECT/global/images/NAME or projects/PROJECT/global/images/family/FAMILY", ref)
}

// ResolveImage reads the image a reference names (images.get, or images.getFromFamily for a family) without
// changing anything. A missing image or family is an *ImageNotFoundError (IsNotFound holds for it too); other
// failures are the API's classified errors.
func ResolveImage(ctx context.Context, c *Clients, ref string) (*computepb.Image, error) {
	project, name, family, err := ParseImageRef(ref, c.Config.Project)
	if err != nil {
		return nil, err
	}
	var img *computepb.Image
	if family != "" {
		img, err = c.Images.GetFromFamily(ctx, &computepb.GetFromFamilyImageRequest{Project: project, Family: family})
	} else {
		img, err = c.Images.Get(ctx, &computepb.GetImageRequest{Project: project, Image: name})
	}
	if err == nil {
		return img, nil
	}
	err = Classify(err)
	if IsNotFound(err) {
		return nil, &ImageNotFoundError{Ref: ref, Project: project, Name: name, Family: family, cause: err}
	}
	return nil, err
}
