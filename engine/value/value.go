package value

import (
	"errors"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Value is one runtime value: an answer, a constant or an intermediate
// result. Its meaning depends on the static sort it belongs to:
//
//   - int and decimal: Num / 10^Scale, exact (Scale is 0 for an int);
//   - bool: Num is 0 or 1;
//   - enum: Num is the index into the field's EnumValues;
//   - date: Num is the proleptic Gregorian ordinal, 0001-01-01 being 1.
//
// Known is false for an unanswered field and for anything computed from
// one (Kleene's third value). The zero Value is unknown.
type Value struct {
	// Num is the value's integer form, read by sort as above.
	Num int64
	// Scale is the count of decimal places in Num; always 0 outside
	// decimal.
	Scale uint8
	// Known is false for an unknown value, whose Num and Scale are then
	// meaningless.
	Known bool
}

// Numbers are exact scaled integers: Num / 10^Scale in an int64. This keeps
// every value inline (no allocation on the evaluation path) and exact; an
// operation whose exact result does not fit is reported as an overflow
// instead of being rounded. 18 significant digits cover every amount a
// statute states.

// maxDigits is the number of significant decimal digits a number may have.
const maxDigits = 18

// pow10 holds 10^0 .. 10^18, every power of ten an int64 can hold.
var pow10 = [...]int64{
	1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000,
	1_000_000_000, 10_000_000_000, 100_000_000_000, 1_000_000_000_000,
	10_000_000_000_000, 100_000_000_000_000, 1_000_000_000_000_000,
	10_000_000_000_000_000, 100_000_000_000_000_000, 1_000_000_000_000_000_000,
}

var (
	errNumberSyntax = errors.New("not a number")
	errNumberSize   = errors.New("more than 18 significant digits")
)

// ParseNumber reads a decimal number in JSON or rules-language syntax
// ("12", "-1250.50", "1e3", "1.0E0") exactly. The result is normalised:
// trailing zeros after the point are dropped, so 1, 1.0 and 1e0 give the
// same Value with Scale 0.
func ParseNumber(s string) (Value, error) {
	neg := false
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var digits []byte
	var buf [64]byte
	digits = buf[:0]
	scale := 0
	seenDigit, seenPoint := false, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			seenDigit = true
			if len(digits) == 0 && c == '0' {
				if seenPoint {
					scale++
				}
				continue
			}
			digits = append(digits, c)
			if seenPoint {
				scale++
			}
			if len(digits) > 40 {
				return Value{}, errNumberSize
			}
		case c == '.' && !seenPoint:
			seenPoint = true
		case c == 'e' || c == 'E':
			goto exponent
		default:
			return Value{}, errNumberSyntax
		}
	}
	return finishNumber(neg, digits, scale, seenDigit, 0)
exponent:
	if !seenDigit || i+1 >= len(s) {
		return Value{}, errNumberSyntax
	}
	{
		exp, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || exp > 1000 || exp < -1000 {
			return Value{}, errNumberSyntax
		}
		return finishNumber(neg, digits, scale, seenDigit, exp)
	}
}

func finishNumber(neg bool, digits []byte, scale int, seenDigit bool, exp int) (Value, error) {
	if !seenDigit {
		return Value{}, errNumberSyntax
	}
	// Drop trailing zeros of the coefficient into the exponent.
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		scale--
	}
	if len(digits) == 0 {
		return Value{Known: true}, nil
	}
	scale -= exp
	if len(digits) > maxDigits {
		return Value{}, errNumberSize
	}
	var n int64
	for _, c := range digits {
		n = n*10 + int64(c-'0')
	}
	if scale < 0 {
		if len(digits)-scale > maxDigits {
			return Value{}, errNumberSize
		}
		n *= pow10[-scale]
		scale = 0
	}
	if scale > 255 {
		return Value{}, errNumberSize
	}
	if neg {
		n = -n
	}
	return Value{Num: n, Scale: uint8(scale), Known: true}, nil
}

// IntValue is the known int (or decimal with no fraction) n.
func IntValue(n int64) Value { return Value{Num: n, Known: true} }

// BoolValue is the known bool b.
func BoolValue(b bool) Value {
	if b {
		return Value{Num: 1, Known: true}
	}
	return Value{Known: true}
}

// True reports whether v is the known bool true.
func (v Value) True() bool { return v.Known && v.Num != 0 }

// False reports whether v is the known bool false.
func (v Value) False() bool { return v.Known && v.Num == 0 }

// NumberString prints a numeric value exactly, without exponent:
// "12", "-0.05", "1250.5".
func (v Value) NumberString() string {
	if v.Scale == 0 {
		return strconv.FormatInt(v.Num, 10)
	}
	neg := v.Num < 0
	u := uint64(v.Num)
	if neg {
		u = -u
	}
	digits := strconv.FormatUint(u, 10)
	s := int(v.Scale)
	if len(digits) <= s {
		digits = strings.Repeat("0", s-len(digits)+1) + digits
	}
	out := digits[:len(digits)-s] + "." + digits[len(digits)-s:]
	if neg {
		out = "-" + out
	}
	return out
}

// normal strips trailing fractional zeros so equal numbers look alike.
func (v Value) Normal() Value {
	for v.Scale > 0 && v.Num%10 == 0 {
		v.Num /= 10
		v.Scale--
	}
	return v
}

// upscale multiplies n by 10^d, reporting false when the result does not fit.
func upscale(n int64, d int) (int64, bool) {
	if n == 0 {
		return 0, true
	}
	if d >= len(pow10) {
		return 0, false
	}
	p := pow10[d]
	if n > math.MaxInt64/p || n < math.MinInt64/p {
		return 0, false
	}
	return n * p, true
}

// cmpNum compares two numbers exactly: -1, 0 or +1.
func Compare(a, b Value) int {
	x, y := a.Num, b.Num
	switch {
	case a.Scale < b.Scale:
		up, ok := upscale(x, int(b.Scale-a.Scale))
		if !ok { // |x·10^d| exceeds every int64, so its sign decides
			return sign(x)
		}
		x = up
	case a.Scale > b.Scale:
		up, ok := upscale(y, int(a.Scale-b.Scale))
		if !ok {
			return -sign(y)
		}
		y = up
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func sign(n int64) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// align brings a and b to a common scale.
func align(a, b Value) (x, y int64, scale uint8, ok bool) {
	x, y, scale = a.Num, b.Num, a.Scale
	switch {
	case a.Scale < b.Scale:
		x, ok = upscale(x, int(b.Scale-a.Scale))
		scale = b.Scale
	case a.Scale > b.Scale:
		y, ok = upscale(y, int(a.Scale-b.Scale))
	default:
		ok = true
	}
	return x, y, scale, ok
}

// addNum returns a+b, or ok=false on overflow.
func Add(a, b Value) (Value, bool) {
	x, y, s, ok := align(a, b)
	if !ok {
		return Value{}, false
	}
	r := x + y // wraps on overflow, detected below
	if (x >= 0) == (y >= 0) && (r >= 0) != (x >= 0) {
		return Value{}, false
	}
	return Value{Num: r, Scale: s, Known: true}, true
}

// negNum returns -a, or ok=false on overflow.
func Neg(a Value) (Value, bool) {
	if a.Num == math.MinInt64 {
		return Value{}, false
	}
	return Value{Num: -a.Num, Scale: a.Scale, Known: true}, true
}

// mulNum returns a·b exactly, or ok=false on overflow.
func Mul(a, b Value) (Value, bool) {
	x, y := a.Num, b.Num
	if x == 0 || y == 0 {
		return Value{Known: true}, true
	}
	neg := (x < 0) != (y < 0)
	ux, uy := uint64(x), uint64(y)
	if x < 0 {
		ux = -ux
	}
	if y < 0 {
		uy = -uy
	}
	hi, lo := bits.Mul64(ux, uy)
	if hi != 0 || lo > math.MaxInt64 {
		return Value{}, false
	}
	r := int64(lo)
	if neg {
		r = -r
	}
	s := int(a.Scale) + int(b.Scale)
	v := Value{Num: r, Known: true}
	for s > 255 {
		if v.Num%10 != 0 {
			return Value{}, false
		}
		v.Num /= 10
		s--
	}
	v.Scale = uint8(s)
	return v.Normal(), true
}

// Dates are proleptic Gregorian ordinals: 0001-01-01 is 1, as Python's
// date.toordinal(). The conversions are Howard Hinnant's civil calendar
// algorithms, shifted from the 1970 epoch.

// unixEpochOrdinal is the ordinal of 1970-01-01.
const unixEpochOrdinal = 719163

// maxOrdinal is the ordinal of 9999-12-31, the last date a field accepts.
const MaxOrdinal = 3652059

// DateOf returns the ordinal of t's date in UTC: how a caller deciding "as
// of today" turns its clock's now into Options.DecisionDate.
func DateOf(t time.Time) int64 {
	y, m, d := t.UTC().Date()
	return DateOrdinal(y, int(m), d)
}

// DateOrdinal returns the ordinal of year-month-day. It does not validate;
// see ParseDate.
func DateOrdinal(y, m, d int) int64 {
	yy := int64(y)
	if m <= 2 {
		yy--
	}
	era := yy / 400
	if yy < 0 && yy%400 != 0 {
		era--
	}
	yoe := yy - era*400
	mp := int64(m+9) % 12
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468 + unixEpochOrdinal
}

// Civil returns the year, month and day of an ordinal.
func Civil(ord int64) (y, m, d int) {
	z := ord - unixEpochOrdinal + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	yy := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int(mp + 3)
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		yy++
	}
	return int(yy), m, d
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// ParseDate reads a strict ISO calendar date "YYYY-MM-DD" (years 0001 to
// 9999) and returns its ordinal. Datetimes, other layouts and impossible
// dates such as 2024-02-30 are rejected.
func ParseDate(s string) (int64, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	num := func(t string) (int, bool) {
		n := 0
		for i := 0; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return 0, false
			}
			n = n*10 + int(t[i]-'0')
		}
		return n, true
	}
	y, ok1 := num(s[:4])
	m, ok2 := num(s[5:7])
	d, ok3 := num(s[8:])
	if !ok1 || !ok2 || !ok3 || y < 1 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	return DateOrdinal(y, m, d), true
}

// FormatDate prints an ordinal as "YYYY-MM-DD".
func FormatDate(ord int64) string {
	y, m, d := Civil(ord)
	b := make([]byte, 0, 10)
	b = appendPadded(b, y, 4)
	b = append(b, '-')
	b = appendPadded(b, m, 2)
	b = append(b, '-')
	return string(appendPadded(b, d, 2))
}

func appendPadded(b []byte, n, width int) []byte {
	s := strconv.Itoa(n)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// AddDays returns the date n days after the ordinal date d (before it when
// n is negative), and ok false when that falls outside 0001-01-01 to
// 9999-12-31.
func AddDays(d, n int64) (v Value, ok bool) {
	if n > MaxOrdinal || n < -MaxOrdinal || d+n < 1 || d+n > MaxOrdinal {
		return Value{}, false
	}
	return Value{Num: d + n, Known: true}, true
}

// AddMonths returns the date n calendar months after the ordinal date d
// (before it when n is negative), the day of month clamped to the length of
// the month it lands in: 31 January + 1 month is 28 February (29 in a leap
// year), 29 February + 12 months is 28 February. ok is false when the
// result falls outside 0001-01-01 to 9999-12-31.
func AddMonths(d, n int64) (v Value, ok bool) {
	if n > 12*10000 || n < -12*10000 {
		return Value{}, false
	}
	y, m, day := Civil(d)
	months := int64(y)*12 + int64(m-1) + n
	ny, nm := int(months/12), int(months%12)+1
	if months < 12 || ny > 9999 {
		return Value{}, false
	}
	return Value{Num: DateOrdinal(ny, nm, min(day, daysIn(ny, nm))), Known: true}, true
}

// monthsBetween counts completed whole months from date a to date b: the
// month completes on the same day-of-month, so 31 January to 28 February is
// 0 months and to 1 March is 1; a 29 February start completes a year on
// 1 March of a non-leap year. Negative when b is before a.
func MonthsBetween(a, b int64) int64 {
	if b < a {
		return -MonthsBetween(b, a)
	}
	ay, am, ad := Civil(a)
	by, bm, bd := Civil(b)
	n := int64(by-ay)*12 + int64(bm-am)
	if bd < ad {
		n--
	}
	return n
}

// yearsBetween counts completed whole years from a to b (an age when a is
// the birth date); negative when b is before a.
func YearsBetween(a, b int64) int64 {
	if b < a {
		return -YearsBetween(b, a)
	}
	return MonthsBetween(a, b) / 12
}
