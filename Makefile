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

# pip installs without compiling (it compiles one file after another, half of a fresh
# install's time), then compileall compiles on every core. Python may not be allowed to
# write bytecode as it imports (PYTHONDONTWRITEBYTECODE, as on CI): without .pyc files every
# process would compile all it imports, every time. `make test` compiles our packages too.
# A dependency's file that is not Python 3 (func_timeout's py2_raise.py) is skipped, as pip
# skips it; dependencies' own test suites (pandas/tests: 46 MB) are never imported here.
SITE = $$($(PY) -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
PACKAGES := bridge sim device mobilegym policies scaleout trainers transfer_eval benchmarks
COMPILE = $(PY) -m compileall -q -j 0
COMPILE_ALL = $(COMPILE) -qq -x '/tests?/' "$(SITE)" || true; $(COMPILE) $(PACKAGES) >/dev/null

$(BASE): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-compile -e .
	$(COMPILE_ALL)
	touch $@

# The dev extra straight away (one resolve and one editable build, not two); it holds the base.
$(DEV): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-compile -e '.[dev]'
	$(COMPILE_ALL)
	touch $@ $(BASE)

# Two workers (this machine and CI have 2 cores); a test file runs on one worker, so its
# module-scoped simulator or virtual phone starts once, and the files that took longest in
# tests/group_durations.json start first (tests/conftest.py). `make test WORKERS=0` runs
# serially; `make test-durations` records the durations again after the suite changed.
WORKERS ?= 2
XDIST = $(if $(filter 0,$(WORKERS)),,-n $(WORKERS) --dist loadgroup --no-loadscope-reorder)
test: lint typecheck
	$(COMPILE) $(PACKAGES) >/dev/null
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
	$(VENV)/bin/mypy --config-file pyproject.toml --num-workers auto

schema: setup-base
	$(VENV)/bin/mgb schema

clean:
	rm -rf $(VENV) build *.egg-info demo-out .mypy_cache
