# The front door: every target sets up what it needs, so each works on a fresh clone.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export PRWEEKLY_HOME ?= $(CURDIR)/data

.PHONY: demo test ui lint format bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/prweekly demo

# One xdist worker per CPU, whole modules at a time, longest first (docs/testing.md).
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pytest -n logical --dist loadfile --no-loadscope-reorder

ui: $(STAMP)
	$(BIN)/prweekly ui

lint: $(STAMP)
	$(BIN)/ruff check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/python -m bench

# Only what `make` itself made: the warehouse, lake and reports under data/ are the user's.
clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
