package tfutil

import (
	"context"
	"errors"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestStringCheckNamesNestedPath(t *testing.T) {
	calls := 0
	v := StringCheck{Desc: "x", Check: func(s string) error {
		calls++
		return errors.New(`"` + s + `" is not a network name`)
	}}
	for _, skip := range []types.String{types.StringNull(), types.StringUnknown()} {
		resp := &validator.StringResponse{}
		v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("a"), ConfigValue: skip}, resp)
		if resp.Diagnostics.HasError() || calls != 0 {
			t.Fatalf("%v was checked", skip)
		}
	}
	resp := &validator.StringResponse{}
	v.ValidateString(context.Background(), validator.StringRequest{Path: AttrPath("network.name"), ConfigValue: types.StringValue("x/y")}, resp)
	if len(resp.Diagnostics) != 1 {
		t.Fatalf("diagnostics = %v", resp.Diagnostics)
	}
	d := resp.Diagnostics[0]
	if d.Summary() != "Invalid network.name" || d.Detail() != `network.name: "x/y" is not a network name` {
		t.Errorf("diagnostic = %q / %q", d.Summary(), d.Detail())
	}
}

func TestWithPath(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"capacity_gb 100 is below the minimum", "capacity_gb 100 is below the minimum"},
		{"capacity_gb: too small", "capacity_gb: too small"},
		{"too small", "capacity_gb: too small"},
		{"capacity_gbx is odd", "capacity_gb: capacity_gbx is odd"},
	} {
		if got := WithPath("capacity_gb", tc.msg); got != tc.want {
			t.Errorf("WithPath(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
	if got := AttrPath("share.capacity_gb"); !got.Equal(path.Root("share").AtName("capacity_gb")) {
		t.Errorf("AttrPath = %v", got)
	}
}
