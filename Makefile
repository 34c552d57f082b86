# The two commands of the README: `make run` (the main job) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# matter.js, the second controller stack of the Matter bridge tests, pinned by tests/matter_js/package-lock.json.
MATTER_JS := tests/matter_js/node_modules/@project-chip/matter.js

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/homefabric demo

test: $(STAMP) | $(MATTER_JS)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -p no:cacheprovider

$(MATTER_JS):
	cd tests/matter_js && npm ci --no-audit --no-fund

bench: $(STAMP)
	$(BIN)/python bench/fast_forward.py
	$(BIN)/python bench/fabric_calls.py

clean:
	rm -rf $(VENV) build *.egg-info
