package syntax

// DeclKind is the kind of a name a .rules file declares.
type DeclKind uint8

// The kinds of declared names.
const (
	DeclSource DeclKind = iota + 1
	DeclField
	DeclGroup
	DeclCriterion
	// DeclValue is a named value or a table.
	DeclValue
	// DeclList is a list of members (a household's people).
	DeclList
)

// String is the kind as the language writes its keyword.
func (k DeclKind) String() string {
	switch k {
	case DeclSource:
		return "source"
	case DeclField:
		return "field"
	case DeclGroup:
		return "group"
	case DeclCriterion:
		return "criterion"
	case DeclValue:
		return "value"
	case DeclList:
		return "list"
	}
	return "unknown"
}

// Declaration is one name a parsed file declares, with the declaration it
// comes from: the one list the studio's draft symbols and an editor's
// outline, navigation and completion read, so they agree on what a file
// declares even when it does not compile.
type Declaration struct {
	// Kind says which of the pointers below is set.
	Kind DeclKind
	// ID is the declared id.
	ID string
	// Pos is where the declaration's keyword starts.
	Pos Pos
	// Group is the group a criterion belongs to; nil for other kinds, and
	// the group itself for a group.
	Group *GroupDecl
	// Source, Field, Criterion and Value are the declaration of their
	// kind.
	Source    *SourceDecl
	Field     *FieldDecl
	Criterion *CriterionDecl
	Value     *ValueDecl
	List      *ListDecl
}

// Declarations lists what f declares: the sources, the lists, the fields, the named
// values and tables, then each group followed by its criteria, each kind
// in source order. A
// declaration the parser skipped over after a syntax error is missing.
func (f *File) Declarations() []Declaration {
	if f == nil {
		return nil
	}
	var out []Declaration
	for _, d := range f.Sources {
		out = append(out, Declaration{Kind: DeclSource, ID: d.ID, Pos: d.Pos, Source: d})
	}
	for _, d := range f.Lists {
		out = append(out, Declaration{Kind: DeclList, ID: d.Name, Pos: d.Pos, List: d})
	}
	for _, d := range f.Fields {
		out = append(out, Declaration{Kind: DeclField, ID: d.ID, Pos: d.Pos, Field: d})
	}
	for _, d := range f.Values {
		if d.Body.ID != "" {
			out = append(out, Declaration{Kind: DeclValue, ID: d.Body.ID, Pos: d.Body.Pos, Value: d})
		}
	}
	for _, g := range f.Groups {
		out = append(out, Declaration{Kind: DeclGroup, ID: g.ID, Pos: g.Pos, Group: g})
		for _, c := range g.Criteria {
			out = append(out, Declaration{Kind: DeclCriterion, ID: c.ID, Pos: c.Pos, Group: g, Criterion: c})
		}
	}
	return out
}
