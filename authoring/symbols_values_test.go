package authoring

import (
	"reflect"
	"testing"
)

// The draft's symbols list its named values and tables, read from the
// parsed text as the other declarations are.
func TestSymbolsListValues(t *testing.T) {
	text := `section s
source act "Act" url "https://example.org/act" licence "public-domain"
field a.n int
value twice int "Twice n" {
  a.n * 2
  cite act "twice"
}
table rate decimal "Rate by n" {
  keys a.n
  ..0 => 0
  1.. => 0.5
  cite act "rate"
}
group g all "G" {
  criterion c "C" {
    twice * rate > 1
    cite act "c"
  }
}
`
	got := SymbolsOf(text).Values
	want := []ValueSymbol{{ID: "twice", Type: "int", Title: "Twice n", Line: 4}, {ID: "rate", Type: "decimal", Title: "Rate by n", Table: true, Line: 8}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values %+v, want %+v", got, want)
	}
}
