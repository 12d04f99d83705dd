# Two commands: `make demo` and `make test`. Both set everything up themselves, idempotently.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# The demo installs what it runs (the package); the tests add the dev extra (Ray, the
# trainer adapters, pytest, the gates), several hundred MB more.
BASE := $(VENV)/.installed
DEV := $(VENV)/.installed-dev

.PHONY: demo test test-durations lint typecheck setup setup-base schema clean

setup-base: $(BASE)
	scripts/ensure_browser.sh $(PY)

setup: $(DEV)
	scripts/ensure_browser.sh $(PY)

$(PY):
	$(PYTHON) -m venv $(VENV)

$(BASE): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(DEV): $(BASE)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

# Two workers (this machine and CI have 2 cores); a test file runs on one worker, so its
# module-scoped simulator or virtual phone starts once, and the files that took longest in
# tests/group_durations.json start first (tests/conftest.py). `make test WORKERS=0` runs
# serially; `make test-durations` records the durations again after the suite changed.
WORKERS ?= 2
XDIST = $(if $(filter 0,$(WORKERS)),,-n $(WORKERS) --dist loadgroup --no-loadscope-reorder)
test: lint typecheck
	$(PY) -m pytest -q $(XDIST)

test-durations: setup
	$(PY) -m pytest -q $(XDIST) --save-group-durations

demo: setup-base
	$(VENV)/bin/mgb demo

# Lint and format are checked on the whole tree before any test runs (CI runs make test).
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# mypy with [tool.mypy] of pyproject.toml: every package, bridge/ strictly (docs/development.md).
typecheck: $(DEV)
	$(VENV)/bin/mypy --config-file pyproject.toml

schema: setup-base
	$(VENV)/bin/mgb schema

clean:
	rm -rf $(VENV) build *.egg-info demo-out .mypy_cache
