#!/usr/bin/env bash
# `make test`: system packages, virtualenv, throwaway PostgreSQL + Redis on loopback,
# lint, migrations check, the whole pytest suite (incl. a real Celery worker process and
# Playwright in /usr/bin/chromium), then stops the servers whatever happened.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/system_packages.sh
make --no-print-directory venv

state=.build/test
scripts/services.sh stop "$state" >/dev/null 2>&1 || true
trap 'scripts/services.sh stop "$state"' EXIT
scripts/services.sh start "$state" >/dev/null
# shellcheck disable=SC1091
source "$state/env"
export DJANGO_SETTINGS_MODULE=heartbench_site.settings.test

echo "== lint"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/lint-imports
echo "== migrations are complete"
.venv/bin/python manage.py makemigrations --check --dry-run
echo "== tests (PostgreSQL on :$HB_PG_PORT, Redis on :$HB_REDIS_PORT)"
.venv/bin/pytest "$@"
