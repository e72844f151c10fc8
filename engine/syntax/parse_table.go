package syntax

// This file parses the body of a table: its keys line, its rows (alone or
// in period blocks) and its cite lines. A row that fails costs that row:
// the parser resumes at the next line.

// tableBody reads a table's body after its opening brace, up to and
// including the closing one.
func (p *parser) tableBody(v *ValueDecl) {
	b := v.Body
	for {
		switch {
		case p.is("}"):
			b.Trailing = p.takeDoc()
			p.next()
			return
		case p.tok.kind == tokEOF || p.atDeclaration():
			p.errorAtEnd("table %s is not closed: add } after its last cite line", b.ID)
			b.Trailing = p.takeDoc()
			return
		case p.is("cite"):
			p.citeLine(b)
		case p.is("keys") && p.tok.lineStart:
			if v.Keys != nil || len(v.Rows) > 0 || len(v.Periods) > 0 {
				p.errorf(p.tok.pos, "the keys line of table %s comes once, before its rows", b.ID)
			}
			v.KeysPos = p.tok.pos
			if !p.guardLine(func() { v.Keys = p.tableKeys() }) {
				b.Failed = true
			}
		case p.is("period") && p.tok.lineStart:
			if len(v.Rows) > 0 {
				p.errorf(p.tok.pos, "table %s has rows outside its periods: put every row in a period, or write no periods", b.ID)
			}
			if pd := p.parsePeriod(v); pd != nil {
				v.Periods = append(v.Periods, pd)
			} else {
				b.Failed = true
			}
		default:
			if len(v.Periods) > 0 {
				p.errorf(p.tok.pos, "table %s has rows outside its periods: put every row in a period, or write no periods", b.ID)
			}
			if row := p.tableRow(v); row != nil {
				v.Rows = append(v.Rows, row)
			} else {
				b.Failed = true
			}
		}
	}
}

// guardLine runs f and, when it fails, skips the rest of the line: a bad
// row or keys line costs that line.
func (p *parser) guardLine(f func()) bool {
	start := p.tok.pos
	if p.try(f) {
		return true
	}
	if p.tok.pos == start && p.tok.kind != tokEOF && !p.is("}") {
		p.next() // the line failed at its first token: move past it
	}
	for !p.tok.lineStart && p.tok.kind != tokEOF {
		p.next()
	}
	return false
}

// tableKeys reads `keys <expr>, <expr>` after the keyword.
func (p *parser) tableKeys() []*Node {
	start := p.tok.pos
	p.next()
	keys := []*Node{p.parseAdd()}
	for p.is(",") && !p.tok.lineStart {
		if len(keys) == MaxTableKeys {
			p.failAt(start, overLimit("this table has more keys", MaxTableKeys, "keys per table", "split the table by one of its keys"))
		}
		p.next()
		keys = append(keys, p.parseAdd())
	}
	return keys
}

// parsePeriod reads `period <from> [until <until>] { rows }`.
func (p *parser) parsePeriod(v *ValueDecl) *PeriodDecl {
	pd := &PeriodDecl{Pos: p.tok.pos, Doc: p.takeDoc()}
	ok := p.guardLine(func() {
		p.next()
		pd.FromPos = p.tok.pos
		pd.From = p.dateLit("the first day of the period")
		if p.is("until") {
			p.next()
			pd.UntilPos = p.tok.pos
			pd.Until = p.dateLit("the last day of the period")
		}
		p.expect("{", "{ to open the period's rows")
	})
	if !ok {
		return nil
	}
	for {
		switch {
		case p.is("}"):
			p.next()
			return pd
		case p.tok.kind == tokEOF || p.atDeclaration() || p.is("cite") && p.tok.lineStart || p.is("period") && p.tok.lineStart:
			p.errorAtEnd("the period from %s is not closed: add } after its last row", pd.From)
			return pd
		}
		if row := p.tableRow(v); row != nil {
			pd.Rows = append(pd.Rows, row)
		} else {
			v.Body.Failed = true
		}
	}
}

// tableRow reads one row: `<match>, ... => <expression>`, or an
// expression alone in a table without keys.
func (p *parser) tableRow(v *ValueDecl) *RowDecl {
	n := len(v.Rows)
	for _, pd := range v.Periods {
		n += len(pd.Rows)
	}
	p.count(p.tok.pos, n, MaxTableRows, "table row")
	row := &RowDecl{Pos: p.tok.pos, Doc: p.takeDoc()}
	ok := p.guardLine(func() {
		if len(v.Keys) > 0 {
			row.Match = append(row.Match, p.keyMatch())
			for p.is(",") {
				p.next()
				row.Match = append(row.Match, p.keyMatch())
			}
			p.expect("=>", "=> and the row's figure")
		}
		row.Value = p.parseExpr()
		if !p.tok.lineStart && !p.is("}") && p.tok.kind != tokEOF {
			p.fail("expected the end of the row, found %s (one row per line)", p.describe())
		}
	})
	if !ok {
		return nil
	}
	return row
}

// keyMatch reads what one key of a row matches.
func (p *parser) keyMatch() *MatchDecl {
	m := &MatchDecl{Pos: p.tok.pos}
	switch {
	case p.tok.kind == tokString:
		m.Str = p.tok.text
		p.next()
		return m
	case p.is("any"):
		m.Any = true
		p.next()
		return m
	case p.is("true"), p.is("false"):
		m.Bool = p.tok.text
		p.next()
		return m
	}
	m.Min = p.matchNumber()
	if p.is("..") {
		m.Range = true
		p.next()
		m.Max = p.matchNumber()
		if m.Min == "" && m.Max == "" {
			p.fail("a range needs at least one end: 9.. (9 and more) or ..0 (0 and less)")
		}
		return m
	}
	if m.Min == "" {
		p.fail("expected what the key matches (a value in quotes, true, false, any, a number or a range such as 2..4 or 9..), found %s", p.describe())
	}
	m.Max = m.Min
	return m
}

// matchNumber reads a whole number with an optional leading minus; "" when
// none is there.
func (p *parser) matchNumber() string {
	sign := ""
	if p.is("-") {
		sign = "-"
		p.next()
		if p.tok.kind != tokNumber {
			p.fail("expected a number after -, found %s", p.describe())
		}
	}
	if p.tok.kind != tokNumber {
		return ""
	}
	text := sign + p.tok.text
	p.next()
	return text
}

// parseValue reads a value declaration after its keyword. Like a group, a
// header that fails is skipped up to the body, which is still read; it
// returns nil only when no body follows.
func (p *parser) parseValue(pos Pos, doc []string, table bool) *ValueDecl {
	v := &ValueDecl{Body: &CriterionDecl{Pos: pos, Doc: doc, kind: "value"}, Table: table}
	if table {
		v.Body.kind = "table"
	}
	if !p.try(func() { p.valueHeader(v) }) {
		p.failed.add(FailedValue, v.Body.ID)
		v.Body.Failed = true
		if !p.skipHeader(syncGroup) {
			return nil
		}
	}
	if table {
		p.tableBody(v)
	} else {
		p.criterionBody(v.Body)
	}
	if v.Body.Failed {
		p.failed.add(FailedValue, v.Body.ID)
	}
	return v
}

// valueHeader reads `<id> <type> "<title>" [unit "<unit>"] [output] {`.
func (p *parser) valueHeader(v *ValueDecl) {
	if p.tok.kind == tokField {
		// A list member's value, member.countable_income: the checker
		// says whether the part before the dot names a list.
		v.Body.ID = p.tok.text
		p.next()
	} else {
		v.Body.ID = p.ident("the value's name, e.g. net_income")
	}
	p.declaring.id = v.Body.ID
	v.TypePos = p.tok.pos
	v.Type = p.ident("the value's type (int, decimal, bool or date)")
	v.Body.Title = p.str("the value's title, e.g. \"Net monthly income\"")
	for {
		switch {
		case p.is("unit"):
			p.next()
			v.Unit = p.str("the unit, e.g. \"USD\"")
			continue
		case p.is("output"):
			p.next()
			v.Output = true
			continue
		}
		break
	}
	p.open(v.Body.What(), syncCriterion)
}
