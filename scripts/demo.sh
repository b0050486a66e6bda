#!/usr/bin/env bash
# `make demo`: SQLite database, demo corpus, demo accounts, then the site on :8000.
set -euo pipefail
cd "$(dirname "$0")/.."
export DJANGO_SETTINGS_MODULE=heartbench_site.settings.local
py=.venv/bin/python

$py manage.py migrate --noinput
$py manage.py demo_setup "$@"
echo
echo "Open http://127.0.0.1:8000/ and log in with one of the accounts above (Ctrl-C stops)."
exec $py manage.py runserver 127.0.0.1:8000
