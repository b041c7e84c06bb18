# Two commands set up everything on a fresh machine:
#   make run   - create .venv, install, migrate the embedded SQLite database, serve on :8000
#   make test  - install the test dependencies (Debian's chromium and nginx included), make sure
#                PostgreSQL is running, and run the whole suite in parallel (tests/README.md)

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# pytest-xdist workers, each with its own servers, databases and Chromium: one more than
# the cores, as the tests wait on servers, sockets and pages (docs/performance.md, "The test suite").
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test install install-test vendor chromium nginx postgres redis lint bench axe

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test,bench]'
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed vendor

install-test: $(VENV)/.installed-test vendor

# Third-party browser assets, served by the app itself (no CDN): Swagger UI and ReDoc for
# /docs and /redoc, and the AsyncAPI 3 JSON Schema the tests validate /asyncapi.json
# against. Fetched from the npm registry at these exact versions, never kept in git.
VENDOR := static/vendor
NPM_ASSETS := swagger-ui-dist@5.35.0 redoc@2.5.4 @asyncapi/specs@6.11.1

vendor: $(VENDOR)/.fetched

$(VENDOR)/.fetched: Makefile
	rm -rf $(VENDOR) && mkdir -p $(VENDOR)/swagger-ui $(VENDOR)/redoc $(VENDOR)/asyncapi $(VENDOR)/packs
	cd $(VENDOR)/packs && npm pack --silent $(NPM_ASSETS) >/dev/null
	tar xzf $(VENDOR)/packs/swagger-ui-dist-*.tgz -C $(VENDOR)/swagger-ui --strip-components=1 \
		package/swagger-ui-bundle.js package/swagger-ui.css package/favicon-32x32.png package/LICENSE
	tar xzf $(VENDOR)/packs/redoc-*.tgz -C $(VENDOR)/redoc --strip-components=2 package/bundles/redoc.standalone.js
	tar xzf $(VENDOR)/packs/asyncapi-specs-*.tgz -C $(VENDOR)/asyncapi --strip-components=2 package/schemas/3.0.0.json
	rm -rf $(VENDOR)/packs
	touch $@

run: install
	HOST=$(HOST) PORT=$(PORT) $(BIN)/dejarik serve

# Browser tests drive Debian's Chromium through Playwright (a browser download cannot work
# here): its headless shell, the build Playwright itself runs headless (half the CPU a page
# of the full browser takes: docs/performance.md); CHROMIUM=/usr/bin/chromium for the other.
chromium:
	@command -v chromium >/dev/null 2>&1 && command -v chromium-headless-shell >/dev/null 2>&1 || { \
		echo "installing Debian's chromium and its headless shell for the browser tests"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			$(SUDO) apt-get install -y -qq chromium chromium-headless-shell >/dev/null; }

# The load-balancer test (tests/realtime/test_behind_nginx.py) puts Debian's nginx in front of
# three server processes: it runs nginx itself, as the test's user, from a temporary directory
# (-p prefix -c conf). No nginx service is wanted: if installing started one, it is stopped.
nginx:
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { \
		echo "installing Debian's nginx for the load-balancer test"; \
		$(SUDO) apt-get update -qq && { DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq nginx-light >/dev/null \
			|| DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq nginx >/dev/null; }; \
		{ $(SUDO) systemctl disable --now nginx || $(SUDO) service nginx stop; } >/dev/null 2>&1 || true; }

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

# axe-core (the accessibility checker the browser tests inject into pages), from npm.
# Its version is set here alone: the stamp names it, so a new version installs afresh,
# and the browser tests refuse to run with another version than this one.
AXE_VERSION := 4.14.1
AXE := .cache/node/axe-core-$(AXE_VERSION).installed
$(AXE):
	npm install --silent --no-save --no-audit --no-fund --prefix .cache/node axe-core@$(AXE_VERSION)
	touch $@

axe: $(AXE)

# The broker tests start their own redis-server on a private port (none is left running).
redis:
	@command -v redis-server >/dev/null 2>&1 || { \
		echo "installing redis-server for the broker tests"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq redis-server >/dev/null; }

test: install-test chromium nginx postgres redis axe
	$(BIN)/ruff check .
	node --test tests/js/
	$(BIN)/pytest -n $(TEST_WORKERS)

lint: install-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: install-test postgres
	$(BIN)/python bench/load.py --matches 1 10 100 --database sqlite postgresql
