# The front door: every target sets up what it needs, so each works on a fresh clone.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export PRWEEKLY_HOME ?= $(CURDIR)/data

.PHONY: demo test test-fast ui lint lint-sql format format-sql docs bench dbt-check clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/prweekly demo

# sqlfluff: settings in .sqlfluff; about 25 s of CPU for every model, spread over the cores.
# (its worker pool leaves a semaphore that Python warns about at exit: harmless, so hushed)
SQLFLUFF := PYTHONWARNINGS=ignore:resource_tracker $(BIN)/sqlfluff
SQL_MODELS := sql

# pytest: one xdist worker more than the CPUs (some tests mostly wait), whole modules at a
# time, longest first (docs/testing.md).
WORKERS = $(shell $(PYTHON) -c "import os; print((os.cpu_count() or 1) + 1)")
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(SQLFLUFF) lint --processes 0 $(SQL_MODELS)
	$(BIN)/pytest -n $(WORKERS) --dist loadfile --no-loadscope-reorder

# the unit layer alone (tests/unit/: code on data, no Dagster instance, server or child
# process), under a minute on two cores; `make test` runs it with the other layers
test-fast: $(STAMP)
	$(BIN)/pytest -n $(WORKERS) --dist loadfile --no-loadscope-reorder tests/unit

ui: $(STAMP)
	$(BIN)/prweekly ui

lint: $(STAMP)
	$(BIN)/ruff check .

lint-sql: $(STAMP)
	$(SQLFLUFF) lint --processes 0 $(SQL_MODELS)

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# sqlfluff's fixes to the SQL models (layout and spelling only; what DuckDB computes stays)
format-sql: $(STAMP)
	$(SQLFLUFF) fix --processes 0 $(SQL_MODELS)

# the README's environment table and list of documents, and docs/architecture.md's asset graph
# and layout
docs: $(STAMP)
	$(BIN)/python -m orchestration.service.generated_docs

bench: $(STAMP)
	$(BIN)/python -m bench

# sql/ under dbt: the bundled sample built by dbt-duckdb and by the runner, every model and
# seed compared row for row (about 15 s; `make test` runs the same comparison on its sample)
dbt-check: $(STAMP)
	$(BIN)/python -m bench.dbt_check

# Only what `make` itself made: the warehouse, lake and reports under data/ are the user's.
clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
