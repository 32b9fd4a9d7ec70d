# Set-up is part of the two commands: `make demo` and `make test` create .venv on a
# fresh machine (CPU torch wheel) and then run. GPU users: `make venv TORCH_SPEC=torch`.
PYTHON ?= python3
VENV ?= .venv
TORCH_SPEC ?= torch==2.13.0
# pytest-xdist workers for `make test` (CI has 2 cores; `make test WORKERS=0` runs one process)
WORKERS ?= 2
BIN := $(VENV)/bin
STAMP := $(VENV)/.burnqed-installed

.PHONY: venv demo test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q "$(TORCH_SPEC)"
	$(BIN)/pip install -q -e ".[dev,cluster]"
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/burnqed demo

test: $(STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_PROGRESS_BARS=1 $(BIN)/python -m pytest -q -p no:cacheprovider -n $(WORKERS) --dist loadgroup

clean:
	rm -rf $(VENV) .pytest_cache
