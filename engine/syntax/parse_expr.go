package syntax

import (
	"fmt"
	"strings"

	"github.com/eligo/eligo/engine/value"
)

// This file parses expressions, by precedence from or down to a primary;
// parser.go parses the declarations around them.

func (p *parser) parseExpr() *Node {
	p.nest()
	x := p.parseOr()
	p.depth--
	return x
}

// binaryLevel reads a left-associative chain of the operators ops over
// operands read by sub. An and/or chain is flat (its compiled form is one
// n-ary node), so it counts operands against MaxChainOperands; any other
// chain nests each operand one level deeper than the one before it.
func (p *parser) binaryLevel(ops []string, sub func() *Node) *Node {
	flat := ops[0] == "and" || ops[0] == "or"
	start := p.tok.pos
	left := sub()
	operands, levels := 1, 0
	for {
		op := ""
		for _, o := range ops {
			if p.is(o) {
				op = o
			}
		}
		if op == "" {
			p.depth -= levels
			return left
		}
		pos := p.tok.pos
		if flat {
			if operands++; operands > MaxChainOperands {
				p.failAt(start, overLimit(fmt.Sprintf("this chain of %s has more operands", op), MaxChainOperands,
					"operands per chain of and or of or", "split the condition into several criteria"))
			}
		} else {
			levels++
			p.nest()
		}
		p.next()
		right := sub()
		left = p.node(&Node{Pos: pos, Kind: NodeBinary, Op: op, Args: []*Node{left, right}})
	}
}

func (p *parser) parseOr() *Node { return p.binaryLevel([]string{"or"}, p.parseAnd) }

func (p *parser) parseAnd() *Node { return p.binaryLevel([]string{"and"}, p.parseNot) }

func (p *parser) parseNot() *Node {
	if p.is("not") {
		pos := p.tok.pos
		p.next()
		p.nest()
		x := p.parseNot()
		p.depth--
		return p.node(&Node{Pos: pos, Kind: NodeNot, Args: []*Node{x}})
	}
	return p.parseCompare()
}

var compareOps = []string{"==", "!=", "<", "<=", ">", ">="}

func (p *parser) parseCompare() *Node {
	left := p.parseAdd()
	pos := p.tok.pos
	var n *Node
	switch {
	case p.is("in"):
		p.next()
		n = p.node(&Node{Pos: pos, Kind: NodeIn, Op: "in", Args: append([]*Node{left}, p.parseList()...)})
	case p.is("not"):
		p.next()
		if !p.is("in") {
			p.fail("expected in after not (write `x not in [...]`), found %s", p.describe())
		}
		p.next()
		n = p.node(&Node{Pos: pos, Kind: NodeIn, Op: "not in", Args: append([]*Node{left}, p.parseList()...)})
	default:
		for _, o := range compareOps {
			if p.is(o) {
				p.next()
				n = p.node(&Node{Pos: pos, Kind: NodeBinary, Op: o, Args: []*Node{left, p.parseAdd()}})
				break
			}
		}
		if n == nil {
			return left
		}
	}
	for _, o := range append(compareOps, "in") {
		if p.is(o) {
			p.fail("comparisons do not chain: write `a < b and b < c` instead of `a < b < c`")
		}
	}
	return n
}

func (p *parser) parseList() []*Node {
	start := p.expect("[", "[ and a list of values")
	var items []*Node
	for !p.is("]") {
		if len(items) == MaxListValues {
			p.failAt(start, overLimit("this list has more values", MaxListValues, "values per list after in",
				"use a coarser enum field, or split the list across criteria of an any group"))
		}
		items = append(items, p.parseAdd())
		if !p.is(",") {
			break
		}
		p.next()
	}
	p.expect("]", "] or , in the list")
	if len(items) == 0 {
		p.errorf(p.tok.pos, "the list after in is empty")
	}
	return items
}

func (p *parser) parseAdd() *Node { return p.binaryLevel([]string{"+", "-"}, p.parseMul) }

func (p *parser) parseMul() *Node { return p.binaryLevel([]string{"*", "/"}, p.parseDefault) }

func (p *parser) parseDefault() *Node { return p.binaryLevel([]string{"??"}, p.parseUnary) }

func (p *parser) parseUnary() *Node {
	if p.is("-") {
		pos := p.tok.pos
		p.next()
		p.nest()
		x := p.parseUnary()
		p.depth--
		if x.Kind == NodeNumber {
			if v, ok := value.Neg(x.Num); ok {
				x.Num, x.Pos = v, pos
				if strings.HasPrefix(x.Lit, "-") {
					x.Lit = v.NumberString()
				} else {
					x.Lit = "-" + x.Lit
				}
				return x
			}
		}
		return p.node(&Node{Pos: pos, Kind: NodeNeg, Args: []*Node{x}})
	}
	return p.parsePrimary()
}

// parseIf reads `if <condition> then <expression> else <expression>`
// from its keyword. Each branch is a whole expression, so the else branch
// runs as far as an expression can: `if c then 1 else 2 + 3` adds 3 in the
// else branch only; parenthesise the if to add to both.
func (p *parser) parseIf() *Node {
	pos := p.tok.pos
	p.next()
	p.nest()
	n := p.node(&Node{Pos: pos, Kind: NodeIf})
	cond := p.parseExpr()
	p.expect("then", "then after the condition of if")
	yes := p.parseExpr()
	p.expect("else", "else: an if gives a value either way")
	no := p.parseExpr()
	p.depth--
	n.Args = []*Node{cond, yes, no}
	return n
}

func (p *parser) parsePrimary() *Node {
	t := p.tok
	switch t.kind {
	case tokNumber:
		p.next()
		v, err := value.ParseNumber(t.text)
		if err != nil {
			p.errorf(t.pos, "number %s: %v", t.text, err)
		}
		return p.node(&Node{Pos: t.pos, Kind: NodeNumber, Num: v, Lit: t.text})
	case tokString:
		p.next()
		return p.node(&Node{Pos: t.pos, Kind: NodeString, Str: t.text})
	case tokField:
		p.checkName()
		p.next()
		return p.node(&Node{Pos: t.pos, Kind: NodeField, Name: t.text})
	case tokIdent:
		if t.lineStart && (p.atDeclaration() || p.atCriterion() || p.inCondition && t.text == "cite") {
			// A condition that ends in an operator (`a.x >= 1 and`) runs
			// into the next line; the line that lacks the value is the
			// one to point at, not the keyword read as a value.
			break
		}
		switch t.text {
		case "true", "false":
			p.next()
			return p.node(&Node{Pos: t.pos, Kind: NodeBool, Num: value.BoolValue(t.text == "true")})
		case "and", "or", "not", "in", "then", "else":
			p.fail("expected a value, found the keyword %s", t.text)
		case "if":
			return p.parseIf()
		}
		p.checkName()
		p.next()
		if p.is("(") && aggregates[t.text] {
			return p.parseAggregate(t)
		}
		if p.is("(") {
			p.next()
			n := p.node(&Node{Pos: t.pos, Kind: NodeCall, Name: t.text})
			if extrema[t.text] && !p.is(")") {
				// min and max of numbers, or over a list's members when
				// the first argument goes on with where or else.
				n.Args = append(n.Args, p.parseExpr())
				if p.is("where") || p.is("else") {
					return p.finishExtremum(t, n)
				}
				if !p.is(",") {
					p.expect(")", ") to close the call to "+t.text)
					return n
				}
				p.next()
			}
			for !p.is(")") {
				if len(n.Args) == MaxCallArgs {
					p.failAt(t.pos, overLimit(fmt.Sprintf("this call to %s has more arguments", t.text), MaxCallArgs,
						"arguments per call", "keep the values that can decide the result, or split the condition into criteria"))
				}
				n.Args = append(n.Args, p.parseExpr())
				if !p.is(",") {
					break
				}
				p.next()
			}
			p.expect(")", ") to close the call to "+t.text)
			return n
		}
		return p.node(&Node{Pos: t.pos, Kind: NodeIdent, Name: t.text})
	case tokPunct:
		if t.text == "(" {
			p.next()
			x := p.parseExpr()
			p.expect(")", "a closing )")
			return x
		}
	}
	p.fail("expected a value (a field, number, string, call or parenthesis), found %s", p.describe())
	return nil
}

// aggregates are the calls that read a list's members.
var aggregates = map[string]bool{"count": true, "sum": true, "any": true, "all": true}

// extrema are the calls that are functions of numbers or, written with
// where or else, aggregates over a list's members.
var extrema = map[string]bool{"min": true, "max": true}

// finishExtremum reads the rest of `min(<term> [where <condition>] else
// <value>)` once n holds the term: the aggregate's Args are the term, the
// condition when there is one, and last the value when no member is
// counted, which min and max over members must say, since the law does.
func (p *parser) finishExtremum(t token, n *Node) *Node {
	p.nest()
	defer func() { p.depth-- }()
	n.Kind = NodeAggregate
	if p.is("where") {
		p.next()
		n.Args = append(n.Args, p.parseExpr())
	}
	if !p.is("else") {
		p.fail("%s over members needs else and the value when no member is counted, e.g. %s(member.age where member.student else 0); found %s",
			t.text, t.text, p.describe())
	}
	p.next()
	n.Args = append(n.Args, p.parseExpr())
	p.expect(")", ") to close "+t.text+"(")
	return n
}

// parseAggregate reads `name(<term> [where <condition>])` from its open
// parenthesis; name was read as t. The checker says whether the term
// names a list's element (count, any, all) or sums over one (sum).
func (p *parser) parseAggregate(t token) *Node {
	p.next()
	p.nest()
	defer func() { p.depth-- }()
	n := p.node(&Node{Pos: t.pos, Kind: NodeAggregate, Name: t.text})
	n.Args = append(n.Args, p.parseExpr())
	if p.is("where") {
		p.next()
		n.Args = append(n.Args, p.parseExpr())
	}
	p.expect(")", ") to close "+t.text+"(")
	return n
}
