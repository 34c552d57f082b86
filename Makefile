# The two commands of the README: `make run` (the main job) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# matter.js, the second controller stack of the Matter bridge tests, pinned by tests/matter_js/package-lock.json.
MATTER_JS := tests/matter_js/node_modules/@project-chip/matter.js
# matter.js for the device zoo homefabric did not make (tests/matter_zoo), pinned by its package-lock.json.
MATTER_ZOO := tests/matter_zoo/node_modules/@matter/main

.PHONY: run test lint perf clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/homefabric demo

# Lint, format check, type check (mypy, configured in pyproject.toml), then the tests with coverage and its floor
# ([tool.coverage.report] fail_under). matter.js is installed first when missing (order-only: no reinstall).
test: $(STAMP) | $(MATTER_JS) $(MATTER_ZOO)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest -p no:cacheprovider --cov --cov-report=term

$(MATTER_JS):
	cd tests/matter_js && npm ci --no-audit --no-fund

$(MATTER_ZOO):
	cd tests/matter_zoo && npm ci --no-audit --no-fund

perf: $(STAMP)
	$(BIN)/python perf/fast_forward.py
	$(BIN)/python perf/fabric_calls.py

clean:
	rm -rf $(VENV) build *.egg-info
