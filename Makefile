# Everything but contract-ts needs only Python 3.11+: each target sets up what it uses.
#   make serve   - the server on http://127.0.0.1:8000 (API docs at /api/docs/); PORT=... to move it
#   make test    - make lint, then the test suite (see tests/services.py for PostgreSQL/Redis)
#   make lint    - ruff (lint and format check), mypy, import-linter contracts, function-level imports
#   make soak    - minutes of bot play on `make serve` (SOAK_MINUTES, default 5)
#   make fuzz    - schemathesis over openapi.yaml against a live server (FUZZ_MAX_EXAMPLES, FUZZ_SEED)
#   make schema  - regenerate openapi.yaml (commit it)
#   make messages - update the translation catalogues under locale/ and compile them (needs GNU gettext; docs/i18n.md)
#   make cluster - the multi-host deployment on this machine, in network namespaces (root; docs/deploy.md)
#   make cluster-stop - remove it: every namespace, link and process (also after a crashed run)
#   make cluster-test - the fault suite over that cluster (kills hosts, cuts links; ~10 minutes)
#   make contract-ts - TypeScript types generated from openapi.yaml decode recorded streams (needs Node.js 20+ and npm)
#   make peer-boardgameio - the load test's peer, boardgame.io's server on PostgreSQL (needs Node.js 20+; tools/peers/README.md)
#
# requirements.txt is what the server needs (make serve, production);
# requirements-dev.txt adds tests, fuzzer and lint tools (it includes the first).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Stamps touched after a successful install: newer than the requirements files
# they depend on means nothing to do. Installing dev satisfies runtime too.
INSTALLED_RUNTIME := $(VENV)/.installed-runtime
INSTALLED_DEV := $(VENV)/.installed-dev
PIP_INSTALL := $(BIN)/python -m pip install --disable-pip-version-check -q

SOAK_MINUTES ?= 5
# make test runs the suite in this many pytest-xdist processes (most tests wait on
# servers, workers and browsers they start, so two share two cores well).
TEST_PROCESSES ?= 2

.PHONY: install install-dev migrate serve lint test soak fuzz schema messages contract-ts peer-boardgameio-install peer-boardgameio cluster cluster-stop cluster-test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(INSTALLED_RUNTIME): $(BIN)/python requirements.txt
	$(PIP_INSTALL) -r requirements.txt
	touch $@

$(INSTALLED_DEV): $(BIN)/python requirements.txt requirements-dev.txt
	$(PIP_INSTALL) -r requirements-dev.txt
	touch $@ $(INSTALLED_RUNTIME)

install: $(INSTALLED_RUNTIME)

install-dev: $(INSTALLED_DEV)

migrate: install
	$(BIN)/python manage.py migrate --noinput

serve: migrate
	$(BIN)/python manage.py serve

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m tests.contract.test_function_imports

test: lint
	$(BIN)/python -m pytest -n $(TEST_PROCESSES) --dist loadfile $(PYTEST_ARGS)

soak: install-dev
	SOAK_MINUTES=$(SOAK_MINUTES) $(BIN)/python -m pytest -s -k soak tests/integration/test_serve.py $(PYTEST_ARGS)

fuzz: install-dev
	$(BIN)/python -m pytest -s -m fuzz tests/fuzz $(PYTEST_ARGS)

schema: install
	$(BIN)/python manage.py spectacular --validate --fail-on-warn --file openapi.yaml

# The catalogues: every marked string of the server (django) and the web client
# (djangojs), for each language but English; the compiled .mo files are committed
# (a fresh clone serves translated pages without gettext), tests/core/test_i18n.py
# checks they match. See docs/i18n.md.
LANGUAGES_TRANSLATED := et
MESSAGES_IGNORE := --ignore=.venv --ignore=node_modules --ignore=clients/typescript --ignore=staticfiles --ignore=tests --ignore=artifacts
messages: install
	$(BIN)/python manage.py makemessages $(addprefix -l ,$(LANGUAGES_TRANSLATED)) -d django --add-location=file --no-obsolete $(MESSAGES_IGNORE)
	$(BIN)/python manage.py makemessages $(addprefix -l ,$(LANGUAGES_TRANSLATED)) -d djangojs --add-location=file --no-obsolete $(MESSAGES_IGNORE)
	$(BIN)/python manage.py compilemessages $(addprefix -l ,$(LANGUAGES_TRANSLATED)) --ignore=.venv --ignore=node_modules

# The one target that needs Node.js: see clients/typescript/README.md.
contract-ts:
	@command -v npm >/dev/null || { echo "make contract-ts needs Node.js 20+ and npm" >&2; exit 1; }
	cd clients/typescript && npm ci --no-audit --no-fund && npm run check

# The load test's peer (tools/peers/README.md): boardgame.io's server from npm, pinned
# by its package-lock.json. `manage.py loadtest --spawn --peer boardgameio` starts it
# itself once installed; `make peer-boardgameio` serves it by hand (PEER_PORT, PEER_DATABASE_URL).
PEER_PORT ?= 8001
PEER_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/chickenfoot_boardgameio
peer-boardgameio-install:
	@command -v npm >/dev/null || { echo "the peer needs Node.js 20+ and npm" >&2; exit 1; }
	cd tools/peers/boardgameio && npm ci --no-audit --no-fund

peer-boardgameio: peer-boardgameio-install
	psql "$(dir $(PEER_DATABASE_URL))postgres" -tAc "SELECT 1 FROM pg_database WHERE datname = '$(notdir $(PEER_DATABASE_URL))'" | grep -q 1 \
		|| psql "$(dir $(PEER_DATABASE_URL))postgres" -c 'CREATE DATABASE "$(notdir $(PEER_DATABASE_URL))"'
	cd tools/peers/boardgameio && PORT=$(PEER_PORT) DATABASE_URL=$(PEER_DATABASE_URL) NODE_ENV=production node server.js

# The cluster (deploy/cluster.py): needs root and deploy/install.sh's packages.
cluster: install
	deploy/install.sh
	$(BIN)/python deploy/cluster.py up

cluster-stop:
	python3 deploy/cluster.py down

cluster-test: install-dev
	deploy/install.sh
	$(BIN)/python -m pytest -p no:xdist -m cluster tests/cluster $(PYTEST_ARGS)
