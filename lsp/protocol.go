package lsp

// The few Language Server Protocol types the server speaks, as the
// specification (3.17) names their members. Only the members the server
// reads or writes are here.

// Position is a zero-based line and a character offset in UTF-16 code
// units, the protocol's default encoding.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a span of a document, End exclusive.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// TextDocumentIdentifier names a document.
type TextDocumentIdentifier struct {
	URI string `json:"uri"`
}

// TextDocumentItem is an opened document.
type TextDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int32  `json:"version"`
	Text       string `json:"text"`
}

// VersionedTextDocumentIdentifier names a version of a document.
type VersionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
}

// DidOpenParams are textDocument/didOpen's.
type DidOpenParams struct {
	TextDocument TextDocumentItem `json:"textDocument"`
}

// ContentChange is one change of didChange: with no Range, the whole text.
type ContentChange struct {
	Range *Range `json:"range,omitempty"`
	Text  string `json:"text"`
}

// DidChangeParams are textDocument/didChange's.
type DidChangeParams struct {
	TextDocument   VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []ContentChange                 `json:"contentChanges"`
}

// DidCloseParams are textDocument/didClose's (and didSave's).
type DidCloseParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// PositionParams are the parameters of the requests about one place:
// hover, definition, references, completion.
type PositionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
	Context      *struct {
		IncludeDeclaration bool `json:"includeDeclaration"`
	} `json:"context,omitempty"`
}

// DocumentParams are the parameters of the requests about a whole
// document: formatting, documentSymbol.
type DocumentParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// CodeActionParams are textDocument/codeAction's.
type CodeActionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Range        Range                  `json:"range"`
}

// Diagnostic severities.
const (
	SeverityError       = 1
	SeverityWarning     = 2
	SeverityInformation = 3
)

// Diagnostic is one problem at a range.
type Diagnostic struct {
	Range    Range  `json:"range"`
	Severity int    `json:"severity"`
	Code     string `json:"code,omitempty"`
	Source   string `json:"source"`
	Message  string `json:"message"`
}

// PublishDiagnosticsParams are textDocument/publishDiagnostics's.
type PublishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     int32        `json:"version"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// TextEdit replaces a range with new text.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// WorkspaceEdit is the edits of a code action, by document.
type WorkspaceEdit struct {
	Changes map[string][]TextEdit `json:"changes"`
}

// CodeAction is a quick fix.
type CodeAction struct {
	Title       string        `json:"title"`
	Kind        string        `json:"kind"`
	Diagnostics []Diagnostic  `json:"diagnostics,omitempty"`
	IsPreferred bool          `json:"isPreferred,omitempty"`
	Edit        WorkspaceEdit `json:"edit"`
}

// MarkupContent is Markdown for a hover.
type MarkupContent struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

// Hover is textDocument/hover's result.
type Hover struct {
	Contents MarkupContent `json:"contents"`
	Range    *Range        `json:"range,omitempty"`
}

// Symbol kinds the outline uses.
const (
	SymbolKindModule   = 2
	SymbolKindClass    = 5
	SymbolKindField    = 8
	SymbolKindFunction = 12
	SymbolKindVariable = 13
	SymbolKindArray    = 18
)

// DocumentSymbol is one entry of the outline.
type DocumentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           int              `json:"kind"`
	Range          Range            `json:"range"`
	SelectionRange Range            `json:"selectionRange"`
	Children       []DocumentSymbol `json:"children,omitempty"`
}

// Completion item kinds.
const (
	CompletionKindFunction   = 3
	CompletionKindField      = 5
	CompletionKindClass      = 7
	CompletionKindModule     = 9
	CompletionKindKeyword    = 14
	CompletionKindReference  = 18
	CompletionKindEnumMember = 20
	CompletionKindVariable   = 6
)

// CompletionItem is one proposal.
type CompletionItem struct {
	Label      string `json:"label"`
	Kind       int    `json:"kind"`
	Detail     string `json:"detail,omitempty"`
	InsertText string `json:"insertText,omitempty"`
}

// CompletionList is textDocument/completion's result.
type CompletionList struct {
	IsIncomplete bool             `json:"isIncomplete"`
	Items        []CompletionItem `json:"items"`
}

// InitializeResult is initialize's result: what the server can do.
type InitializeResult struct {
	Capabilities map[string]any `json:"capabilities"`
	ServerInfo   struct {
		Name string `json:"name"`
	} `json:"serverInfo"`
}
