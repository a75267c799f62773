# kernelkit: `make demo` runs the main job, `make test` runs ruff and the test suite,
# `make docs` builds the documentation site into docs/_build/html (`make docs QUICK=1`: the
# gallery on reduced sizes, as CI runs it).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench docs clean

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# after installing, `kernelkit warmup` compiles the numba code once (about a minute): the
# cache files it writes next to the sources make every later first call fast
$(VENV)/.demo-installed: $(BIN)/activate pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[plot,io,progress]"
	$(BIN)/kernelkit warmup
	touch $@

$(VENV)/.test-installed: $(BIN)/activate pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[all]"
	$(BIN)/kernelkit warmup
	touch $@ $(VENV)/.demo-installed

demo: $(VENV)/.demo-installed
	$(BIN)/kernelkit demo

test: $(VENV)/.test-installed
	$(BIN)/ruff check src tests benchmarks docs
	$(BIN)/python -m pytest -n 2 --dist loadfile

$(VENV)/.docs-installed: $(BIN)/activate pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	touch $@

# guide pages' doctests run first (each page's numbers are checked), then Sphinx with
# warnings as errors; QUICK=1 sets KERNELKIT_DOCS_QUICK, read by the gallery examples
docs: $(VENV)/.docs-installed
	KERNELKIT_DOCS_QUICK=$(QUICK) $(BIN)/python -m pytest -q -p no:cacheprovider --doctest-glob="*.rst" docs/guide
	KERNELKIT_DOCS_QUICK=$(QUICK) $(BIN)/python -m sphinx -W --keep-going -b html \
		-d docs/_build/doctrees docs docs/_build/html

$(VENV)/.bench-installed: $(VENV)/.test-installed pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[all,bench]"
	touch $@

bench: $(VENV)/.bench-installed
	$(BIN)/python -m benchmarks.run

clean:
	rm -rf $(VENV) build dist src/*.egg-info kernelkit-report docs/_build docs/api/generated \
		docs/auto_examples
