package engine

// ConvertDecoded is Convert through encoding/json and ConvertMap only,
// the reference the direct reader is compared with (see convertDecoded).
func (r *Ruleset) ConvertDecoded(raw []byte) (*Inputs, error) { return r.convertDecoded(raw) }
