#!/usr/bin/env bash
# `make bench`: throwaway PostgreSQL + Redis, then every script under benchmarks/.
set -euo pipefail
cd "$(dirname "$0")/.."
state=.build/bench
scripts/services.sh stop "$state" >/dev/null 2>&1 || true
trap 'scripts/services.sh stop "$state"' EXIT
scripts/services.sh start "$state" >/dev/null
# shellcheck disable=SC1091
source "$state/env"
export DJANGO_SETTINGS_MODULE=heartbench_site.settings.test
for script in benchmarks/*.py; do
  [ "$(basename "$script")" = "__init__.py" ] && continue
  echo "== $script"
  .venv/bin/python "$script"
done
# The load benchmark once more with next to no pause: lost or doubled writes under contention.
echo "== benchmarks/load.py --pace stress"
.venv/bin/python benchmarks/load.py --pace stress
