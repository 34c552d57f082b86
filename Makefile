# The two commands of the README: `make run` (the main job) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint perf clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/homefabric demo

# Lint, format check, type check (mypy, configured in pyproject.toml), then the tests with coverage and its floor
# ([tool.coverage.report] fail_under).
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest -p no:cacheprovider --cov --cov-report=term

perf: $(STAMP)
	$(BIN)/python perf/fast_forward.py
	$(BIN)/python perf/fabric_calls.py

clean:
	rm -rf $(VENV) build *.egg-info
