// Package value is the rules language's one runtime value and its
// arithmetic: exact scaled decimals (no rounding; an exact result that does
// not fit is an overflow), proleptic Gregorian date ordinals, and the
// unknown value of Kleene's three-valued logic. The parser reads number
// literals into a Value, the compiler folds constants with it and the
// evaluator computes with it, so all three agree on every number and date.
// It imports nothing of the project.
package value
