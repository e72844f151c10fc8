package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// boundsInput is a body with each kind of shape the walk checks: a
// required member, a list with maxItems of objects with required members,
// a list without a bound, and a member of any shape.
type boundsInput struct {
	Body struct {
		Name   string       `json:"name"`
		Cases  []boundsCase `json:"cases" maxItems:"3"`
		Counts []int        `json:"counts,omitempty"`
		Colors []string     `json:"colors,omitempty" enum:"red,green"`
		Any    any          `json:"any,omitempty"`
	}
}

type boundsCase struct {
	Label   string `json:"label"`
	Outcome string `json:"outcome"`
}

// newBoundsServer serves POST /test/bounds, whose body is boundsInput's,
// openly and unmetered in effect.
func newBoundsServer(t testing.TB) *Server {
	t.Helper()
	st := store.New(storetest.New(t))
	s := newServer(t, Config{Logger: slog.New(slog.DiscardHandler), Metering: metering.Config{Budgets: metering.UniformBudgets(1 << 40)}}, st)
	Register(s, Route{OperationID: "test-bounds", Method: http.MethodPost, Path: "/test/bounds",
		Summary: "Bounded body", Description: "Takes a body of each shape.", Access: Open,
		Scopes: []auth.Scope{auth.ScopeDecide}, Class: ClassDecide},
		func(ctx context.Context, _ *boundsInput) (*callerOutput, error) { return &callerOutput{}, nil })
	return s
}

// repeated is n copies of item joined by commas.
func repeated(item string, n int) string { return strings.TrimSuffix(strings.Repeat(item+",", n), ",") }

// members is n members "x00000":1, "x00001":1... joined by commas.
func members(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"x%05d":1`, i)
	}
	return b.String()
}

// TestBodyShapeIsBoundedBeforeDecoding: a body whose shape its schema
// refuses (a list over maxItems, undeclared members, absent required
// ones) or that passes the body limits (values, depth) is answered from
// one pass over its bytes; every 422 lists at most MaxValidationItems
// items and counts the rest in a last too_many_errors item, including the
// validator's own lists (20,000 unknown enums).
func TestBodyShapeIsBoundedBeforeDecoding(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newBoundsServer(t).Handler())
	t.Cleanup(srv.Close)

	deep := strings.Repeat("[", MaxBodyDepth) + strings.Repeat("]", MaxBodyDepth)
	tests := []struct {
		name  string
		body  string
		code  int
		items int    // items listed, the count item included
		first string // type of the first item
		loc   string // its loc, as JSON
		more  int    // the count item's input; 0: no count item
	}{
		{"valid", `{"name":"a","cases":[{"label":"x","outcome":"y"}],"counts":[1,2],"any":{"deep":[[1]]}}`, 200, 0, "", "", 0},
		{"a list over maxItems", `{"name":"a","cases":[` + repeated(`{"label":"x","outcome":"y"}`, 3000) + `]}`, 422, 1, "too_long", `["body","cases"]`, 0},
		{"empty objects past maxItems", `{"name":"a","cases":[` + repeated(`{}`, 30_000) + `]}`, 422, MaxValidationItems + 1, "missing", `["body","cases",0,"label"]`, 2*30_000 + 1 - MaxValidationItems},
		{"undeclared members", `{"name":"a","cases":[],` + members(8_000) + `}`, 422, MaxValidationItems + 1, "extra_forbidden", `["body","x00000"]`, 8_000 - MaxValidationItems},
		{"a required member absent", `{"cases":[],"any":"` + strings.Repeat("x", SmallBody) + `"}`, 422, 1, "missing", `["body","name"]`, 0},
		{"values of the wrong type", `{"name":"a","cases":[],"counts":[` + repeated(`"1"`, 20_000) + `]}`, 422, MaxValidationItems + 1, "int_type", `["body","counts",0]`, 20_000 - MaxValidationItems},
		{"the validator's own list", `{"name":"a","cases":[],"colors":[` + repeated(`"blue"`, 20_000) + `]}`, 422, MaxValidationItems + 1, "enum", `["body","colors",0]`, 20_000 - MaxValidationItems},
		{"a small body gets the validator's whole list", `{"name":"a","cases":[],"colors":["blue"],` + `"x":1}`, 422, 2, "enum", `["body","colors",0]`, 0},
		{"too many values", `{"name":"a","cases":[],"counts":[` + repeated(`1`, MaxBodyValues) + `]}`, 422, 1, "too_long", `["body"]`, 0},
		{"nested too deeply", `{"name":"a","cases":[],"any":` + deep + `}`, 422, 1, "json_invalid", `["body"]`, 0},
		{"nested as deep as allowed", `{"name":"a","cases":[],"any":` + deep[2:len(deep)-2] + `}`, 200, 0, "", "", 0},
		{"not JSON", `{"name":"a","cases":[` + repeated(`{}`, 30_000), 422, 1, "json_invalid", `["body"]`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := http.Post(srv.URL+RootPath+"/test/bounds", "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			raw, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.code {
				t.Fatalf("status %d, want %d: %.500s", res.StatusCode, tt.code, raw)
			}
			if tt.code != http.StatusUnprocessableEntity {
				return
			}
			var got struct {
				Detail []ValidationItem `json:"detail"`
			}
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if len(got.Detail) != tt.items {
				t.Fatalf("%d items, want %d: %.800s", len(got.Detail), tt.items, raw)
			}
			loc, _ := json.Marshal(got.Detail[0].Loc)
			if got.Detail[0].Type != tt.first || string(loc) != tt.loc {
				t.Errorf("first item %s at %s, want %s at %s", got.Detail[0].Type, loc, tt.first, tt.loc)
			}
			last := got.Detail[len(got.Detail)-1]
			switch {
			case tt.more == 0 && last.Type == TooManyErrorsType:
				t.Errorf("a count item where all are listed: %+v", last)
			case tt.more > 0 && (last.Type != TooManyErrorsType || last.Input != float64(tt.more)):
				t.Errorf("last item %+v, want %s counting %d", last, TooManyErrorsType, tt.more)
			}
			if len(raw) > 64<<10 {
				t.Errorf("the answer is %d bytes", len(raw))
			}
		})
	}
}

// TestValidationFailedListsACap: a list built in a handler is cut the
// same way.
func TestValidationFailedListsACap(t *testing.T) {
	t.Parallel()
	items := make([]ValidationItem, 75)
	for i := range items {
		items[i] = ValidationItem{Type: "value_error", Loc: []any{"body", i}, Msg: "bad"}
	}
	got := ValidationFailed(items...).Detail.([]ValidationItem)
	if len(got) != MaxValidationItems+1 || got[MaxValidationItems].Type != TooManyErrorsType || got[MaxValidationItems].Input != 25 {
		t.Fatalf("%d items, last %+v", len(got), got[len(got)-1])
	}
	body, _ := json.Marshal(ValidationFailed(items[:3]...))
	if bytes.Contains(body, []byte(TooManyErrorsType)) {
		t.Fatalf("a short list got a count item: %s", body)
	}
}
