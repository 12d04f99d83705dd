# Two commands: `make demo` and `make test`. Both set everything up themselves, idempotently.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-durations lint setup schema clean

setup: $(STAMP)
	scripts/ensure_browser.sh $(PY)

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

# Two workers (this machine and CI have 2 cores); a test file runs on one worker, so its
# module-scoped simulator or virtual phone starts once, and the files that took longest in
# tests/group_durations.json start first (tests/conftest.py). `make test WORKERS=0` runs
# serially; `make test-durations` records the durations again after the suite changed.
WORKERS ?= 2
XDIST = $(if $(filter 0,$(WORKERS)),,-n $(WORKERS) --dist loadgroup --no-loadscope-reorder)
test: setup
	$(PY) -m pytest -q $(XDIST)

test-durations: setup
	$(PY) -m pytest -q $(XDIST) --save-group-durations

demo: setup
	$(VENV)/bin/mgb demo

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check bridge

schema: setup
	$(VENV)/bin/mgb schema

clean:
	rm -rf $(VENV) build *.egg-info demo-out
