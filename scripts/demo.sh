#!/usr/bin/env bash
# `make demo`: SQLite database, demo corpus, demo accounts, the guides, then the site on
# 127.0.0.1:$PORT (8000 unless told: `make demo PORT=8001`).
set -euo pipefail
cd "$(dirname "$0")/.."
export DJANGO_SETTINGS_MODULE=heartbench_site.settings.local
py=.venv/bin/python
port="${PORT:-8000}"

# The port first: finding it taken after a minute of migrating helps nobody.
if ! [[ "$port" =~ ^[0-9]+$ ]] || ((port < 1 || port > 65535)); then
    echo "PORT=$port is not a port number (1-65535). Choose one: make demo PORT=8001" >&2
    exit 2
fi
if ! $py -c 'import socket, sys
s = socket.socket()
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)' "$port"; then
    echo "Port $port on 127.0.0.1 is already in use (another server is listening on it)." >&2
    echo "Stop that server, or choose another port: make demo PORT=8001" >&2
    exit 1
fi

$py manage.py migrate --noinput
$py manage.py demo_setup "$@"
# The guides (docs/) for the site's Help links, served at /docs/.
$py -m mkdocs build || echo "The guides could not be built; the Help links will answer 404." >&2
echo
echo "Open http://127.0.0.1:$port/ and log in with one of the accounts above (Ctrl-C stops)."
echo "The guides are at http://127.0.0.1:$port/docs/."
exec $py manage.py runserver "127.0.0.1:$port"
