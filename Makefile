# Set-up is part of every target: a fresh clone needs only `make demo` or `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# the project is (re)installed only when pyproject.toml is newer than the stamp; each target installs the extras
# it needs: the demo is a benchmark run ([bench]), the tests exercise every extra but [text] ([dev])
STAMP_DEMO := $(VENV)/.installed-demo
STAMP_DEV := $(VENV)/.installed-dev

.PHONY: demo test bench browser clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP_DEMO): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[bench]'
	touch $@

$(STAMP_DEV): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@ $(STAMP_DEMO)

demo: $(STAMP_DEMO)
	$(VENV)/bin/linkwise demo

# The browser tests drive Debian's Chromium (Playwright's own browser download cannot work offline).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium missing: install Debian's chromium package for the browser tests"; fi; }

test: $(STAMP_DEV) browser
	$(PY) -m pytest -n 2 -q

# quick runs, into benchmarks/results/quick/; `benchmarks/run.py --full` rewrites the committed benchmarks/results/
bench: $(STAMP_DEV)
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
