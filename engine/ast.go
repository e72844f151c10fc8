package engine

// The syntax tree of a .rules file, as parsed and as printed. It keeps what
// the text says (including comment blocks, which the printer writes back)
// and nothing it does not: positions are for messages only and are ignored
// when two trees are compared.

// File is a parsed .rules file. Declarations are kept by kind in source
// order; the printer writes them in the canonical order.
type File struct {
	Slug        *Attr
	Section     *Attr
	Name        *Attr
	Description *Attr
	Sources     []*SourceDecl
	Fields      []*FieldDecl
	Groups      []*GroupDecl
	Outcome     *OutcomeDecl
	// Trailing holds comment lines after the last declaration.
	Trailing []string
	// broken holds the ids of declarations that failed to parse (and
	// "section" when the section line did), so the checker can stay quiet
	// about their uses.
	broken map[string]bool
}

// Attr is a one-line header: ruleset, section, name or description.
type Attr struct {
	Pos   Pos
	Doc   []string
	Value string
}

// SourceDecl is `source <id> "<title>" url|artefact "<loc>" licence "<l>"`.
type SourceDecl struct {
	Pos     Pos
	Doc     []string
	ID      string
	Title   string
	LocKind string // "url" or "artefact"
	Loc     string
	Licence string
}

// FieldDecl is a field line with its indented attributes. Weight is 1 when
// the text leaves it out, so printing it explicitly does not change the tree.
type FieldDecl struct {
	Pos         Pos
	Doc         []string
	ID          string
	Type        string // int, decimal, bool, date or enum
	TypePos     Pos
	Enum        []string
	Weight      int64
	Question    string
	Description string
	Notes       []*NoteDecl
	Widget      string
	WidgetPos   Pos
}

// NoteDecl is `note why|legal_background "<text>" [source <id>]`.
type NoteDecl struct {
	Pos    Pos
	Kind   string
	Text   string
	Source string
}

// GroupDecl is `group <id> all|any "<title>" { criteria }`.
type GroupDecl struct {
	Pos      Pos
	Doc      []string
	ID       string
	Kind     string
	Title    string
	Criteria []*CriterionDecl
	Trailing []string
}

// CriterionDecl is one criterion; Expr is nil when Discretionary.
type CriterionDecl struct {
	Pos           Pos
	Doc           []string
	ID            string
	Title         string
	Discretionary bool
	ExprDoc       []string
	Expr          *Node
	Cites         []*CiteDecl
	Trailing      []string
}

// CiteDecl is `cite <source id> "<quote>"`.
type CiteDecl struct {
	Pos    Pos
	Doc    []string
	Source string
	Quote  string
}

// OutcomeDecl is `outcome <expression over group ids>`.
type OutcomeDecl struct {
	Pos  Pos
	Doc  []string
	Expr *Node
}

// NodeKind is the syntactic form of an expression node.
type NodeKind uint8

// Expression node kinds.
const (
	NodeBinary NodeKind = iota + 1 // Op in or, and, comparisons, + - * ??
	NodeNot                        // not Args[0]
	NodeNeg                        // -Args[0] (never a number literal: those fold)
	NodeIn                         // Args[0] in|not in [Args[1:]...]; Op "in" or "not in"
	NodeCall                       // Name(Args...)
	NodeField                      // Name is group.name
	NodeIdent                      // Name is a bare identifier (a group in outcome)
	NodeNumber                     // Num
	NodeString                     // Str
	NodeBool                       // Num is 0 or 1
)

// Node is an expression as written.
type Node struct {
	Pos  Pos
	Kind NodeKind
	Op   string
	Name string
	Str  string
	Num  Value
	// Lit is a number as written ("43759.80", "1e3"), so that fmt keeps
	// the analyst's spelling; the value is Num either way.
	Lit  string
	Args []*Node
}
