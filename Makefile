# kernelkit: `make demo` runs the main job, `make test` runs ruff and the test suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean

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
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/python -m pytest -n 2 --dist loadfile

bench: $(VENV)/.test-installed
	$(BIN)/python -m benchmarks.run

clean:
	rm -rf $(VENV) build dist src/*.egg-info kernelkit-report
