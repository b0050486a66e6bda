# heartbench: the two commands a new user needs, and a few for developers.
#
#   make demo   virtualenv + install + SQLite demo corpus + one account per role + the
#               guides, then serves http://127.0.0.1:8000 (Celery eager, no API keys);
#               `make demo PORT=8001` serves another port
#   make test   installs/starts throwaway PostgreSQL, Redis and Chromium, runs lint and
#               the whole suite against them, stops the servers

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: demo test venv lint bench clean

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

venv: $(VENV)/.installed

demo: venv
	PORT=$(PORT) scripts/demo.sh

test:
	scripts/test.sh

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

bench: venv
	scripts/bench.sh

clean:
	rm -rf .build demo.sqlite3 staticfiles test-output
