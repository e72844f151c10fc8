package projects

import (
	"maps"
	"reflect"
	"slices"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/api/resource"
)

// Schema describes POST /projects/'s answer as encoding/json writes it:
// the project's members and the upload's, side by side. huma reads no
// members of embedded unexported types, so without this the document
// would promise an empty object. The schema is registered once, as
// ProjectCreated.
func (createResponse) Schema(r huma.Registry) *huma.Schema {
	const name = "ProjectCreated"
	if _, ok := r.Map()[name]; !ok {
		merged := &huma.Schema{Type: huma.TypeObject, Properties: map[string]*huma.Schema{},
			Description: "The project created, with its first source when source_text was not blank."}
		for _, t := range []reflect.Type{reflect.TypeFor[projectResponse](), reflect.TypeFor[uploadResponse]()} {
			s := r.Schema(t, false, "")
			maps.Copy(merged.Properties, s.Properties)
			merged.Required = append(merged.Required, s.Required...)
		}
		slices.Sort(merged.Required)
		// A project just created has no draft: encoding/json writes the
		// nil pointer as null.
		merged.Properties["draft"] = resource.NullableCopy(r, merged.Properties["draft"])
		merged.PrecomputeMessages()
		r.Map()[name] = merged
	}
	return &huma.Schema{Ref: "#/components/schemas/" + name}
}
