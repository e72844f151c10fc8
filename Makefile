# Eligo: `make run` serves the API with a local database and a demo key;
# `make test` is the full check CI runs. With no DATABASE_URL both start a
# project-local PostgreSQL cluster in .data/pg (scripts/devdb.sh).

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME ?= 5s

.PHONY: deps build run test vet staticcheck gotest plaintest fuzz calendartest bench eval-generation db-url db-stop web webtest openapi clients openapitest vscodetest replicas

deps:
	@scripts/deps.sh

build:
	go build -o bin/eligo ./cmd/eligo

run: deps build
	scripts/run.sh

db-url:
	@scripts/devdb.sh url

db-stop:
	@scripts/devdb.sh stop

# test: packages, database, vet, staticcheck, race tests (among them
# deploy/'s replica test: three eligo serve behind HAProxy), then in the plain
# build the Z3 binding's memory-leak test (it measures resident memory, which
# the race detector's shadow memory would swamp) and the solver's
# differential test at 2,000 random answer sets per ruleset (the race run
# samples 400), then a short run of every fuzz target, then the web
# console's checks (webtest), then the calendar guard (calendartest, which
# reuses webtest's npm packages), then the OpenAPI checks (openapitest),
# then the VS Code extension's (vscodetest). DATABASE_URL is exported to
# everything below.
test: deps
	@url="$${DATABASE_URL:-$$(scripts/devdb.sh url)}"; export DATABASE_URL="$$url"; \
	$(MAKE) --no-print-directory vet staticcheck gotest plaintest fuzz webtest calendartest openapitest vscodetest

vet:
	go vet ./...

staticcheck:
	go run $(STATICCHECK) ./...

gotest:
	go test -race -timeout 30m ./...

plaintest:
	go test -count=1 -run='Leak' ./solver/z3/
	go test -count=1 -run='Differential' ./solver/ -differential-samples=2000

fuzz:
	scripts/fuzz.sh $(FUZZTIME)

# replicas: the deployment of deploy/ on loopback (deploy/replica_test.go):
# three eligo serve (the binary, built by the test) behind HAProxy with
# deploy/haproxy.cfg, one killed and two rolled under load; then the
# checks of deploy/'s files (haproxy -c, systemd-analyze, promtool, the
# environment file against the flags). gotest runs the same tests as part
# of go test ./...; this target runs them alone, verbosely.
replicas: deps
	@url="$${DATABASE_URL:-$$(scripts/devdb.sh url)}"; export DATABASE_URL="$$url"; \
	go test -count=1 -v ./deploy/

# calendartest: the date-sensitive suites with the clock (ELIGO_TODAY) set
# to today, the first and last day of every casebank period and the day
# after it ends, and two years ahead (scripts/calendar.sh), so that no
# test depends on the day it runs and no period's end turns main red.
calendartest:
	scripts/calendar.sh

# web: rebuild the console's committed assets (web/dist) from web/src and the
# locked npm packages; commit web/dist afterwards. `make run` needs none of
# this: the binary embeds web/dist.
web:
	cd web && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && ./build.sh dist

# webtest: the console's checks (web/check.sh): web/dist matches its
# sources, type check and unit tests, then the browser tests against a real
# `eligo serve` in Debian's chromium; screenshots in web/e2e/artifacts/.
webtest:
	web/check.sh

# openapi: record the operations' examples from real calls on a live
# server (api/openapi/examples.json), then rewrite the committed OpenAPI documents
# (api/openapi.json, 3.1, and api/openapi-3.0.json) from the code, after an
# API type or route changes; commit them with the change (tests fail while
# they differ), then run `make clients`.
openapi: deps
	@url="$${DATABASE_URL:-$$(scripts/devdb.sh url)}"; export DATABASE_URL="$$url"; \
	go test -count=1 -run TestRecordedExamples ./api/routes/ -args -update
	go run ./cmd/eligo openapi --out api/openapi.json
	go run ./cmd/eligo openapi --version 3.0 --out api/openapi-3.0.json

# clients: regenerate the Go client (clients/go, oapi-codegen v2.8.2 with
# default options) and the TypeScript client's types (clients/ts,
# openapi-typescript) from the committed documents, and re-vendor the
# reference page's renderer (api/openapi/reference) from the locked npm packages.
clients:
	cd tools/openapi && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	tools/openapi/gen-clients.sh clients/go clients/ts/src
	tools/openapi/vendor-reference.sh api/openapi/reference

# openapitest: tools/openapi/check.sh: Redocly and Spectral lint both
# documents (0 errors, 0 warnings), the committed clients and reference
# assets match a fresh generation, the TypeScript client compiles under
# --strict and calls a live server, and the reference page renders in
# headless chromium with no request leaving the server.
openapitest:
	tools/openapi/check.sh

# vscodetest: editors/vscode/check.sh: install the extension's locked npm
# packages, tokenise every casebank ruleset with its TextMate grammar (no
# unknown token), package it with the locked @vscode/vsce into
# bin/eligo-rules.vsix and check what the package holds.
vscodetest:
	editors/vscode/check.sh bin/eligo-rules.vsix

# bench: the Go benchmarks, then the /decide load benchmark (cmd/eligo-load)
# against `eligo serve` on loopback with decision records on: one server per
# record mode (spool, spool with fsync, database, buffered) measured in turn
# at 4 and 16 connections, with the server's and its PostgreSQL backends'
# CPU per decision, each scenario beside a bare net/http server answering
# the same bytes (the ceiling). The load step takes about 9 minutes; run
# bin/eligo-load -duration 2s for a quick look. Not part of `make test`: it
# measures, it asserts nothing but that every answered decision is recorded.
bench: deps build
	@url="$${DATABASE_URL:-$$(scripts/devdb.sh url)}"; export DATABASE_URL="$$url"; \
	go test -run='^$$' -bench=. -benchmem ./... && \
	go build -o bin/eligo-load ./cmd/eligo-load && bin/eligo-load

# eval-generation: generate every casebank ruleset from its source text and
# cases with a real model (ELIGO_EVAL_PROVIDER_KEY, ELIGO_MODEL_BASE_URL,
# ELIGO_EVAL_MODEL); without a key it says so and does nothing. Never run
# by CI, where the same harness runs against the scripted model.
eval-generation: deps
	@url="$${DATABASE_URL:-$$(scripts/devdb.sh url)}"; export DATABASE_URL="$$url"; \
	go run ./cmd/eligo-evalgen
