# Two commands: `make book` (set up, run every chapter (committed paper results where they exist, else the quick profile), build the HTML) and `make test`.
PROFILE ?= auto
VENV    ?= .venv
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.installed

.PHONY: book test lint setup build pdf bench clean
book: $(STAMP)
	$(PY) -m lib book --profile $(PROFILE)
	@echo "open _build/html/index.html"

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest tests -q

lint: $(STAMP)
	$(VENV)/bin/ruff check --fix .

setup: $(STAMP)

$(STAMP): requirements.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt 2>&1 | grep -v "^WARNING: Location" || true
	$(PY) -c "import torch, papermill, jupytext, jupyter_book" && $(VENV)/bin/ruff --version >/dev/null && touch $(STAMP)

build: $(STAMP)
	$(PY) -m lib build

pdf: $(STAMP)
	$(PY) -m lib pdf

bench: $(STAMP)
	$(PY) benchmarks/bench_engine.py

clean:
	rm -rf _build book/executed
