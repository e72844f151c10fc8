package plan

import "encoding/binary"

// cacheKey identifies everything a plan depends on, and nothing more, so
// that requests differing only in answers the plan cannot see share an
// entry:
//
//   - the content digest (and the decision date, when the rules read it);
//   - the answered-field pattern;
//   - every criterion's status;
//   - the values of the answered fields read by a criterion that also reads
//     an unanswered field (only such a criterion can still change, and the
//     solver reasons about its answered values). An answered field read only
//     by settled criteria matters through their statuses alone;
//   - the normalised inquiry context.
func (q *planQuery) cacheKey() string {
	m := q.m
	b := make([]byte, 0, 128)
	b = append(b, m.digest...)
	b = append(b, 0)
	if m.rs.DependsOnDate() {
		b = binary.AppendVarint(b, q.res.DecisionDate)
	}
	b = q.unanswered.appendWords(b, (len(m.rs.Fields)+63)/64)
	var open fieldSet
	var packed byte
	for c, st := range q.res.Criteria {
		packed |= byte(st) << (2 * uint(c%4))
		if c%4 == 3 {
			b, packed = append(b, packed), 0
		}
		if !m.critFields[c].intersect(q.unanswered).empty() {
			open = open.union(m.critFields[c])
		}
	}
	b = append(b, packed)
	for _, s := range open.minus(q.unanswered).slots() {
		v := q.in.Values[s]
		b = binary.AppendVarint(b, v.Num)
		b = append(b, v.Scale)
	}
	b = append(b, 0)
	b = append(b, q.ic.Key()...)
	return string(b)
}
