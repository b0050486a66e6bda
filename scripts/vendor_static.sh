#!/usr/bin/env bash
# Reproduce static/vendor/ from the npm registry at the versions pinned in package.json
# and package-lock.json. The copied files are committed: lab machines may be offline,
# so the site never loads a script or stylesheet from a CDN.
#
#   scripts/vendor_static.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cp "$root/package.json" "$root/package-lock.json" "$work/"
(cd "$work" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)

vendor="$root/static/vendor"
rm -rf "$vendor/bootstrap" "$vendor/htmx" "$vendor/axe-core"
mkdir -p "$vendor/bootstrap/css" "$vendor/bootstrap/js" "$vendor/htmx" "$vendor/axe-core"

bs="$work/node_modules/bootstrap"
cp "$bs/dist/css/bootstrap.min.css" "$bs/dist/css/bootstrap.min.css.map" "$vendor/bootstrap/css/"
# The bundle carries Popper, so no separate @popperjs/core file is needed.
cp "$bs/dist/js/bootstrap.bundle.min.js" "$bs/dist/js/bootstrap.bundle.min.js.map" "$vendor/bootstrap/js/"
cp "$bs/LICENSE" "$vendor/bootstrap/LICENSE"

hx="$work/node_modules/htmx.org"
cp "$hx/dist/htmx.min.js" "$vendor/htmx/htmx.min.js"
cp "$hx/LICENSE" "$vendor/htmx/LICENSE"

# axe-core is for the accessibility tests (tests/browser/test_accessibility.py), which
# inject it into the page; no template loads it.
axe="$work/node_modules/axe-core"
cp "$axe/axe.min.js" "$vendor/axe-core/axe.min.js"
cp "$axe/LICENSE" "$vendor/axe-core/LICENSE"

versions() { node -p "require('$1/package.json').version"; }
cat > "$vendor/VERSIONS.txt" <<TXT
bootstrap $(versions "$bs")
htmx.org $(versions "$hx")
axe-core $(versions "$axe")
TXT
echo "vendored into $vendor:"
cat "$vendor/VERSIONS.txt"
