# Two commands set up everything on a fresh machine:
#   make run   - create .venv, install, migrate the embedded SQLite database, serve on :8000
#   make test  - install the test dependencies (Debian's chromium included), make sure
#                PostgreSQL is running, and run the whole suite on SQLite and PostgreSQL

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test install install-test chromium postgres lint bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test,bench]'
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

run: install
	HOST=$(HOST) PORT=$(PORT) $(BIN)/dejarik serve

# Browser tests drive Debian's Chromium through Playwright (a browser download cannot work here).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser tests"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

# Make sure a PostgreSQL server answers on 127.0.0.1:5432 (install and start one if needed).
postgres:
	@if ! command -v pg_lsclusters >/dev/null 2>&1; then \
		echo "installing PostgreSQL"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq postgresql >/dev/null; \
		echo "letting the tests connect as postgres from 127.0.0.1 (trust, this machine only)"; \
		$(SUDO) sed -i '1i host all postgres 127.0.0.1/32 trust' $$(ls /etc/postgresql/*/main/pg_hba.conf | sort -V | tail -n 1); \
		$(SUDO) pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql | sort -V | tail -n 1) main reload 2>/dev/null || true; \
	fi
	@pg_isready -q -h 127.0.0.1 -p 5432 || { \
		echo "starting PostgreSQL"; \
		$(SUDO) pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql | sort -V | tail -n 1) main start; \
		for i in $$(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done; }
	@pg_isready -h 127.0.0.1 -p 5432

test: install-test chromium postgres
	$(BIN)/ruff check .
	$(BIN)/pytest

lint: install-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: install-test postgres
	$(BIN)/python bench/load.py --matches 1 10 100 --database sqlite postgresql
