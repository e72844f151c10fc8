#!/usr/bin/env bash
# deps.sh — install the Debian packages Eligo needs (libz3-dev for the
# solver binding, postgresql for the local database, poppler-utils for
# pdftotext, which extracts uploaded PDF sources, chromium for the browser
# tests of the web console and the API reference page, prometheus for
# promtool, which lints the metrics page and deploy/'s alert rules in the
# tests, haproxy for the replica test, which runs three eligo serve behind
# deploy/haproxy.cfg, systemd for systemd-analyze, which checks
# deploy/eligo.service, curl and jq for the manual's examples, which go
# test ./docs/ runs, unzip for the check of the packaged VS Code
# extension) when dpkg says they
# are missing. Runs apt-get update once, then apt-get install -y, through
# sudo unless already root. Does nothing when everything is present.
set -euo pipefail

packages=(libz3-dev postgresql poppler-utils chromium prometheus haproxy systemd curl jq unzip)
missing=()
for p in "${packages[@]}"; do
	if ! dpkg -s "$p" >/dev/null 2>&1; then
		missing+=("$p")
	fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if ! command -v apt-get >/dev/null; then
	echo "deps: missing ${missing[*]} and apt-get is not available; install them by hand" >&2
	exit 1
fi
sudo=()
if [[ "$(id -u)" != 0 ]]; then
	sudo=(sudo)
fi
echo "deps: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y "${missing[@]}"
