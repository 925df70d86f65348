# Everything needs only Python 3.11+: each target sets up what it uses.
#   make serve   - the server on http://127.0.0.1:8000 (API docs at /api/docs/); PORT=... to move it
#   make test    - the test suite (see tests/services.py for PostgreSQL/Redis)
#   make soak    - minutes of bot play on `make serve` (SOAK_MINUTES, default 5)
#   make fuzz    - schemathesis over openapi.yaml against a live server (FUZZ_MAX_EXAMPLES, FUZZ_SEED)
#   make schema  - regenerate openapi.yaml (commit it)

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Touched after a successful install: newer than every requirements file means
# nothing to do.
INSTALLED := $(VENV)/.installed
REQUIREMENTS := $(wildcard requirements*.txt)

SOAK_MINUTES ?= 5

.PHONY: install migrate serve test soak fuzz schema

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(INSTALLED): $(BIN)/python $(REQUIREMENTS)
	$(BIN)/python -m pip install --disable-pip-version-check -q -r requirements.txt
	touch $@

install: $(INSTALLED)

migrate: install
	$(BIN)/python manage.py migrate --noinput

serve: migrate
	$(BIN)/python manage.py serve

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

soak: install
	SOAK_MINUTES=$(SOAK_MINUTES) $(BIN)/python -m pytest -s -k soak tests/integration/test_serve.py $(PYTEST_ARGS)

fuzz: install
	$(BIN)/python -m pytest -s -m fuzz tests/fuzz $(PYTEST_ARGS)

schema: install
	$(BIN)/python manage.py spectacular --validate --fail-on-warn --file openapi.yaml
