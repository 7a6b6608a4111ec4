# One entry point. `make demo` runs the main job, `make test` the whole suite; both build
# their own virtual environment (.venv) from pyproject.toml on first use.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo eval-demo test lint typecheck unit bench clean

# pip -qq: errors only. A host's pip configuration may name package indexes or wheel
# folders that do not exist there, and pip warns about each one on every install; a
# failed install still prints its error and stops make.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -qq --upgrade pip
	$(PY) -m pip install -qq -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/msgfilter demo-data --rows 200000 --out out/demo/archive.parquet
	$(VENV)/bin/msgfilter route --archive out/demo/archive.parquet \
		--subscriptions samples/subscriptions.yaml --out out/demo/route

eval-demo: $(STAMP)
	$(VENV)/bin/msgfilter eval "color = 'red' AND weight > 2.5 AND name LIKE 'ord\_%' ESCAPE '\'" \
		--messages samples/messages.jsonl

lint: $(STAMP)
	$(PY) -m ruff check src tests benchmarks

typecheck: $(STAMP)
	$(PY) -m mypy --strict src

# Two processes: about half the suite is Spark and the JVM, half Python, so two workers
# overlap them on a two-core machine; worksteal evens out the long Spark tests.
unit: $(STAMP)
	$(PY) -m pytest -q -n 2 --dist worksteal

test: lint typecheck unit

bench: $(STAMP)
	$(PY) benchmarks/bench_selectors.py

clean:
	rm -rf $(VENV) out .pytest_cache .mypy_cache .ruff_cache
