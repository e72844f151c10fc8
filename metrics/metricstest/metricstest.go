// Package metricstest reads what a metrics.Metrics counted, for tests that
// check a family moves when its event happens.
package metricstest

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// Sum is the total of family name's series in g whose labels include
// want (every series when want is empty): a counter's or gauge's value, a
// histogram's sample count.
func Sum(t testing.TB, g prometheus.Gatherer, name string, want map[string]string) float64 {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	total := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			match := true
			for k, v := range want {
				if labels[k] != v {
					match = false
				}
			}
			if match {
				total += m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return total
}
