// Package metricstest reads what a metrics.Metrics counted, for tests that
// check a family moves when its event happens.
package metricstest

import (
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Sum is the total of family name's series in g whose labels include
// want (every series when want is empty): a counter's or gauge's value, a
// histogram's sample count.
func Sum(t testing.TB, g prometheus.Gatherer, name string, want map[string]string) float64 {
	t.Helper()
	total := 0.0
	for _, m := range matching(t, g, name, want) {
		total += m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
	}
	return total
}

// Series counts family name's series in g whose labels include want,
// whatever their values: whether a series exists before its first event,
// and how many a family holds.
func Series(t testing.TB, g prometheus.Gatherer, name string, want map[string]string) int {
	t.Helper()
	return len(matching(t, g, name, want))
}

// matching is family name's series in g whose labels include want.
func matching(t testing.TB, g prometheus.Gatherer, name string, want map[string]string) []*dto.Metric {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	var out []*dto.Metric
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
				out = append(out, m)
			}
		}
	}
	return out
}

// Scrape reads the metrics page at url (another process's `eligo serve
// --metrics-addr`) once, as Prometheus would, and returns what it held as a
// Gatherer, so that Sum reads another process's counts as it reads this
// one's.
func Scrape(t testing.TB, url string) prometheus.Gatherer {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("scrape %s: %s", url, res.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	parsed, err := parser.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("scrape %s: parse: %v", url, err)
	}
	families := make([]*dto.MetricFamily, 0, len(parsed))
	for _, f := range parsed {
		families = append(families, f)
	}
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) { return families, nil })
}
