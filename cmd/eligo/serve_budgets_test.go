package main

import (
	"io"
	"testing"

	"github.com/eligo/eligo/metering"
)

func TestServeBudgets(t *testing.T) {
	t.Setenv("ELIGO_BUDGETS", "anonymous.decide=500")
	cfg, err := parseServeConfig(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	b := cfg.API.API.Metering.Budgets
	if b.Limit(metering.Anonymous, metering.ClassDecide) != 500 || b.Limit("free", metering.ClassDecide) != 500 || b.Limit("pro", metering.ClassDecide) != 100_000 {
		t.Fatalf("env override not applied over the defaults: %v", b)
	}
	cfg, err = parseServeConfig([]string{"--budgets", "pro.generate=9"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.API.API.Metering.Budgets.Limit("pro", metering.ClassGenerate) != 9 || cfg.API.API.Metering.Budgets.Limit(metering.Anonymous, metering.ClassDecide) != 250 {
		t.Fatalf("flag should replace the env list: %v", cfg.API.API.Metering.Budgets)
	}
	if _, err := parseServeConfig([]string{"--budgets", "gold.decide=1"}, io.Discard); err == nil {
		t.Fatal("unknown tier accepted")
	}
}
