# Two entry points for a fresh machine: `make demo` and `make test`.
# Both create .venv and install everything on first use (idempotent: a stamp keyed on pyproject.toml).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export LITELLM_LOCAL_MODEL_COST_MAP := True
export TRITON_INTERPRET := 1
# `make demo` and `make test` run on the CPU backend whatever the shell exports (GPU checks: bench/device_check.sh)
export REPAIR_BACKEND := triton-cpu
export ANONYMIZED_TELEMETRY := False

.PHONY: setup demo test clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# The CPU build of torch (on local disk here); an unpinned torch would pull a multi-GB CUDA build.
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	VENV=$(VENV) bash examples/demo.sh

test: $(STAMP)
	$(PY) -m pytest -q -n 2 tests

clean:
	rm -rf $(VENV) .pytest_cache
