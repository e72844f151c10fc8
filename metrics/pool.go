package metrics

import (
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// poolCollector reads the database pool's own statistics when scraped.
type poolCollector struct {
	pool *pgxpool.Pool

	total, idle, acquired, maxConns *prometheus.Desc
	acquires, emptyAcquires         *prometheus.Desc
	acquireSeconds                  *prometheus.Desc
	canceledAcquires                *prometheus.Desc
}

// PoolCollector exports pool's statistics (pgxpool.Stat) as
// eligo_db_pool_* families: connections by state, acquisitions, the
// waits among them and the time spent waiting.
func PoolCollector(pool *pgxpool.Pool) prometheus.Collector {
	name := func(n string) string { return prometheus.BuildFQName(Namespace, "db_pool", n) }
	return &poolCollector{
		pool:             pool,
		total:            prometheus.NewDesc(name("connections"), "Connections the pool holds now.", nil, nil),
		idle:             prometheus.NewDesc(name("idle_connections"), "Connections idle in the pool now.", nil, nil),
		acquired:         prometheus.NewDesc(name("acquired_connections"), "Connections in use now.", nil, nil),
		maxConns:         prometheus.NewDesc(name("max_connections"), "The most connections the pool may hold.", nil, nil),
		acquires:         prometheus.NewDesc(name("acquires_total"), "Connections acquired from the pool.", nil, nil),
		emptyAcquires:    prometheus.NewDesc(name("empty_acquires_total"), "Acquisitions that had to wait for a connection.", nil, nil),
		canceledAcquires: prometheus.NewDesc(name("canceled_acquires_total"), "Acquisitions given up because their context ended.", nil, nil),
		acquireSeconds:   prometheus.NewDesc(name("acquire_wait_seconds_total"), "Time spent acquiring connections.", nil, nil),
	}
}

// Describe sends the families' descriptions.
func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.total, c.idle, c.acquired, c.maxConns, c.acquires, c.emptyAcquires, c.canceledAcquires, c.acquireSeconds} {
		ch <- d
	}
}

// Collect reads the pool's statistics once and sends them.
func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	ch <- prometheus.MustNewConstMetric(c.total, prometheus.GaugeValue, float64(s.TotalConns()))
	ch <- prometheus.MustNewConstMetric(c.idle, prometheus.GaugeValue, float64(s.IdleConns()))
	ch <- prometheus.MustNewConstMetric(c.acquired, prometheus.GaugeValue, float64(s.AcquiredConns()))
	ch <- prometheus.MustNewConstMetric(c.maxConns, prometheus.GaugeValue, float64(s.MaxConns()))
	ch <- prometheus.MustNewConstMetric(c.acquires, prometheus.CounterValue, float64(s.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(c.emptyAcquires, prometheus.CounterValue, float64(s.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(c.canceledAcquires, prometheus.CounterValue, float64(s.CanceledAcquireCount()))
	ch <- prometheus.MustNewConstMetric(c.acquireSeconds, prometheus.CounterValue, s.AcquireDuration().Seconds())
}
