package api

import (
	"reflect"
	"runtime"
	"testing"
)

// BenchmarkBodyCost measures what refusing or validating a body costs per
// byte of it, the figure docs/limits.md#json-bodies-before-they-are-decoded
// bounds: the walk alone (ShapeErrors) and BodyErrors, the walk's
// refusal or else the validator's list, on bodies shaped like the
// attacks it answers, and one the walk passes (wrong_enums: errors of
// value only, the validator's worst per byte). bytes/body-byte is B/op
// divided by the body's bytes.
func BenchmarkBodyCost(b *testing.B) {
	s := newBoundsServer(b)
	typ := reflect.TypeFor[boundsInput]().Field(0).Type
	registry := s.OpenAPI().Components.Schemas
	schema := registry.Schema(typ, true, "BoundsBody")
	bodies := []struct{ name, body string }{
		{"empty_cases", `{"name":"a","cases":[` + repeated(`{}`, 30_000) + `]}`},
		{"undeclared", `{"name":"a","cases":[],` + members(30_000) + `}`},
		{"wrong_counts", `{"name":"a","cases":[],"counts":[` + repeated(`"1"`, 30_000) + `]}`},
		{"wrong_enums", `{"name":"a","cases":[],"colors":[` + repeated(`"blue"`, 30_000) + `]}`},
		{"values", `{"name":"a","cases":[],"counts":[` + repeated(`1`, MaxBodyValues) + `]}`},
	}
	for _, c := range bodies {
		raw := []byte(c.body)
		b.Run(c.name+"/walk", func(b *testing.B) {
			b.ReportAllocs()
			var total float64
			for b.Loop() {
				total += float64(allocatedBy(func() { _, _ = s.ShapeErrors(raw, schema) }))
			}
			b.ReportMetric(total/float64(b.N)/float64(len(raw)), "bytes/body-byte")
		})
		b.Run(c.name+"/refusal", func(b *testing.B) {
			b.ReportAllocs()
			var total float64
			for b.Loop() {
				total += float64(allocatedBy(func() {
					if e, _ := s.ShapeErrors(raw, schema); e == nil {
						_ = s.BodyErrors(raw, typ, "BoundsBody")
					}
				}))
			}
			b.ReportMetric(total/float64(b.N)/float64(len(raw)), "bytes/body-byte")
		})
	}
}

// allocatedBy is the bytes f allocated (runtime.MemStats.TotalAlloc).
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
