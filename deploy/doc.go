// Package deploy is a deployment of Eligo to copy (the files beside this
// one: haproxy.cfg, eligo.service, eligo.env, alerts.yml, described in
// docs/deployment.md#a-deployment-to-copy) and the tests that hold it
// true: the replica test runs three real `eligo serve` processes behind
// HAProxy with haproxy.cfg as it is, kills one and rolls the others; the
// checks run haproxy -c, systemd-analyze verify and security, promtool
// check rules, and compare eligo.env with the flags of `eligo serve`. The
// package holds no code; a Go package is where `go test ./...`, and so
// `make test`, finds these checks.
package deploy
