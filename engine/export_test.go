package engine

import (
	"fmt"
	"reflect"
)

// ConvertDecoded is Convert through encoding/json and ConvertMap only,
// the reference the direct reader is compared with (see convertDecoded).
func (r *Ruleset) ConvertDecoded(raw []byte) (*Inputs, error) { return r.convertDecoded(raw) }

// ConvertPathsDiffer converts raw both ways, as Convert does and through
// encoding/json and ConvertMap only, and says how the results differ
// ("" when they are the same: the same error text, or the same Values,
// Provided, FieldErrors in order, raw values byte for byte, and Unused).
// direct reports whether the direct reader took raw.
func ConvertPathsDiffer(r *Ruleset, raw []byte) (diff string, direct bool) {
	got, gotErr := r.Convert(raw)
	want, wantErr := r.convertDecoded(raw)
	if obj, err := objectStart(raw); err == nil {
		_, direct = r.convertDirect(obj)
	}
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		return fmt.Sprintf("error %v, the decoded path's %v", gotErr, wantErr), direct
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("inputs\n%+v\nthe decoded path's\n%+v", got, want), direct
	}
	return "", direct
}
