#!/usr/bin/env bash
# check.sh [OUT.vsix] — the VS Code extension's checks in `make test`:
# install the locked npm packages (npm ci, install scripts off: nothing
# else is downloaded), tokenise every casebank ruleset with the grammar
# (check.js), package the extension with the locked @vscode/vsce, and
# check the package holds the manifest, the grammar, the extension and
# its language client. The package is written to OUT.vsix, by default
# bin/eligo-rules.vsix at the repository's root; a relative OUT is from
# the current directory.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$(realpath -m "${1:-$root/bin/eligo-rules.vsix}")"
cd "$here"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "vscode: the extension's checks need Node.js and npm" >&2
	exit 1
fi
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

node check.js "$root/casebank"

mkdir -p "$(dirname "$out")"
node_modules/.bin/vsce package --skip-license --allow-missing-repository --out "$out" >/dev/null

listing="$(unzip -Z1 "$out")"
for want in extension/package.json extension/extension.js extension/syntaxes/rules.tmLanguage.json \
	extension/language-configuration.json extension/node_modules/vscode-languageclient/package.json; do
	if ! grep -qx "$want" <<<"$listing"; then
		echo "vscode: $out lacks $want" >&2
		exit 1
	fi
done
for unwanted in extension/check.js extension/node_modules/@vscode/vsce/package.json extension/node_modules/vscode-textmate/package.json; do
	if grep -qx "$unwanted" <<<"$listing"; then
		echo "vscode: $out holds $unwanted, which is for the checks only" >&2
		exit 1
	fi
done
unzip -p "$out" extension/package.json | node -e '
const m = JSON.parse(require("fs").readFileSync(0, "utf8"));
const lang = (m.contributes.languages || []).find((l) => (l.extensions || []).includes(".rules"));
const grammar = (m.contributes.grammars || []).find((g) => lang && g.language === lang.id);
if (!lang || !grammar || m.main !== "./extension.js") {
  console.error("vscode: the packaged manifest does not contribute the .rules language, its grammar and ./extension.js");
  process.exit(1);
}'
echo "vscode: packaged $out"
