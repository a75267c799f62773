# kernelkit: `make demo` runs the main job, `make test` runs ruff and the test suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.demo-installed: $(BIN)/activate pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[plot,io,progress]"
	touch $@

$(VENV)/.test-installed: $(BIN)/activate pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[all]"
	touch $@ $(VENV)/.demo-installed

demo: $(VENV)/.demo-installed
	$(BIN)/kernelkit demo

test: $(VENV)/.test-installed
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/python -m pytest -n 2 --dist loadfile

$(VENV)/.bench-installed: $(VENV)/.test-installed pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[all,bench]"
	touch $@

bench: $(VENV)/.bench-installed
	$(BIN)/python -m benchmarks.run

clean:
	rm -rf $(VENV) build dist src/*.egg-info kernelkit-report
