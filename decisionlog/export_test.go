package decisionlog

// This file gives the tests of package decisionlog_test what only they
// read; an operator sees the same count in the metrics.

// Refused returns how many records PostgreSQL refused as invalid data since
// New (a value it cannot store, such as U+0000 in a string, or a record
// breaking a CHECK): each is left out of the table, logged at ERROR with its
// decision id and SQLSTATE, and its Record failed with ErrRefused. Close
// logs the total.
func (r *Recorder) Refused() int64 { return r.refused.Load() }
