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

# Bytecode is cached (__pycache__, ignored by git): each of the suite's processes, and
# each Celery worker or command it starts, would otherwise compile every module again.
unset PYTHONDONTWRITEBYTECODE

# The test databases are copies of one migrated template (tests/databases.py): it is
# migrated here, on the other core, while the linters run.
export HB_TEST_TEMPLATE_DATABASE=test_heartbench_template
psql "$DATABASE_URL" -qc "DROP DATABASE IF EXISTS $HB_TEST_TEMPLATE_DATABASE" \
    -c "CREATE DATABASE $HB_TEST_TEMPLATE_DATABASE"
DATABASE_URL="${DATABASE_URL%/*}/$HB_TEST_TEMPLATE_DATABASE" \
    .venv/bin/python manage.py migrate --run-syncdb --noinput -v 0 &
migrating=$!

echo "== lint"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/lint-imports
echo "== migrations are complete"
.venv/bin/python manage.py makemigrations --check --dry-run
# The guides the pages' help links open (/docs/, served from .build/docs), as `make demo`
# and the image build them; tests/site/test_docs.py checks the strict build on its own.
echo "== the guides"
.venv/bin/python -m mkdocs build --strict 2>&1 | grep -v '^INFO' || true
test -f .build/docs/index.html
wait "$migrating"
# The suite runs in HB_TEST_PROCESSES processes (pytest-xdist; 3 by default, for a 2-core
# machine whose tests wait on PostgreSQL, Chromium and Celery workers as much as they
# compute). Each test file runs whole in one process (module fixtures are built once);
# each process has its own test database and Redis database (heartbench_site/settings/test.py).
# The long files are handed out first, so the processes finish together (tests/xdist_order.py).
processes=${HB_TEST_PROCESSES:-3}
echo "== tests (PostgreSQL on :$HB_PG_PORT, Redis on :$HB_REDIS_PORT, $processes processes)"
PYTHONPATH=. .venv/bin/pytest -p tests.xdist_order -n "$processes" --dist loadfile \
    --no-loadscope-reorder "$@"
