# Everything a fresh machine needs: `make run` and `make test` set up .venv themselves.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test bench system system-run clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

system:
	bash scripts/setup-system.sh test

system-run:
	bash scripts/setup-system.sh run

run: $(STAMP) system-run
	$(BIN)/safari-sim run experiments/quickstart.yaml

# numba kernels compiled once, one game at a time, then the tests on both cores (pytest-xdist),
# the 25 slowest named at the end (what to move behind the slow marker)
test: $(STAMP) system
	$(BIN)/python -m safari_sim.warm
	$(BIN)/python -m pytest -q -n 2 --durations=25

bench: $(STAMP)
	$(BIN)/safari-sim bench

clean:
	rm -rf $(VENV) results .pytest_cache
