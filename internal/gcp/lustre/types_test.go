package lustre

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestInstanceJSON(t *testing.T) {
	in := Instance{Name: "n", Filesystem: "fs", CapacityGib: 36000, PerUnitStorageThroughput: 250}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, `"capacityGib":"36000"`) || !strings.Contains(s, `"perUnitStorageThroughput":"250"`) {
		t.Errorf("marshal: %s", s)
	}
	if strings.Count(s, "capacityGib") != 1 {
		t.Errorf("capacityGib written twice: %s", s)
	}
	if b, _ := json.Marshal(Instance{Name: "x"}); strings.Contains(string(b), "capacityGib") {
		t.Errorf("zero capacity not omitted: %s", b)
	}

	for _, doc := range []string{
		`{"name":"n","capacityGib":"36000","perUnitStorageThroughput":"250"}`,
		`{"name":"n","capacityGib":36000,"perUnitStorageThroughput":250}`,
	} {
		var out Instance
		if err := json.Unmarshal([]byte(doc), &out); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if out.Name != "n" || out.CapacityGib != 36000 || out.PerUnitStorageThroughput != 250 {
			t.Errorf("%s → %+v", doc, out)
		}
	}
	var bad Instance
	if err := json.Unmarshal([]byte(`{"capacityGib":"lots"}`), &bad); err == nil {
		t.Error("non-integer capacity accepted")
	}
}

func TestAnyJSONAndOperationResult(t *testing.T) {
	raw, err := AnyJSON(InstanceTypeURL, &Instance{Name: "projects/p/locations/z/instances/i", CapacityGib: 9000})
	if err != nil {
		t.Fatal(err)
	}
	if AnyTypeURL(raw) != InstanceTypeURL {
		t.Errorf("@type lost: %s", raw)
	}
	inst, err := OperationResult(&Operation{Name: "op", Done: true, Response: raw})
	if err != nil || inst.CapacityGib != 9000 {
		t.Errorf("result %+v %v", inst, err)
	}
	empty, _ := AnyJSON(EmptyTypeURL, nil)
	if inst, err := OperationResult(&Operation{Name: "op", Done: true, Response: empty}); inst != nil || err != nil {
		t.Errorf("delete result %+v %v", inst, err)
	}
	_, err = OperationResult(&Operation{Name: "op", Done: true, Error: &Status{Code: 9, Message: "busy"}})
	if err == nil || !strings.Contains(err.Error(), "FAILED_PRECONDITION: busy") {
		t.Errorf("failed op: %v", err)
	}
}
