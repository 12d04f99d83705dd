# Two commands: `make demo` and `make test`. Both set everything up themselves, idempotently.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint setup schema clean

setup: $(STAMP)
	scripts/ensure_browser.sh $(PY)

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

test: setup
	$(PY) -m pytest -q

demo: setup
	$(VENV)/bin/mgb demo

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check bridge

schema: setup
	$(VENV)/bin/mgb schema

clean:
	rm -rf $(VENV) build *.egg-info demo-out
