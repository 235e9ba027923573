# The two commands a new machine needs: `make play` and `make test`. Each installs what it needs into a
# virtual environment of its own, .venv (Debian and Ubuntu refuse `pip install` into the system Python).
# VENV= (empty) uses the Python in PATH as it is, e.g. inside an environment you made yourself.
SYSTEM_PYTHON ?= python3
VENV ?= .venv
PYTHON = $(if $(VENV),$(VENV)/bin/python,$(SYSTEM_PYTHON))
PIP = $(PYTHON) -m pip --disable-pip-version-check -q

.PHONY: install play test test-slow bench catalogs clean

$(VENV)/bin/python:
	$(SYSTEM_PYTHON) -m venv $(VENV) || { echo "make: cannot create $(VENV): on Debian/Ubuntu run 'sudo apt install python3-venv' first"; exit 1; }

install: $(if $(VENV),$(VENV)/bin/python)
	$(PIP) install -e '.[test,openspiel,rl,dask]'

play: install
	$(PYTHON) -m rulebook.interpreter play

# the quick suite (everything but the tests marked slow), then the slow set: long exact solves and the load test.
# Both run on two pytest-xdist workers (a module's tests stay together, see tests/conftest.py); JOBS=1 runs in one.
JOBS ?= 2
XDIST = $(if $(filter 1,$(JOBS)),-p no:xdist,-n $(JOBS) --dist loadgroup)
test: install
	$(PYTHON) -m pytest -q -m "not slow" $(XDIST) --durations=10

test-slow: install
	$(PYTHON) -m pytest -q -m slow $(XDIST) --durations=5

bench: install
	$(PYTHON) -m benchmarks

# Page-frame texts: extract the English message ids from tools/ (see babel.cfg) and merge them into
# the German and Dutch catalogs; then translate the new or changed entries (tests fail until done).
catalogs: install
	$(PYTHON) -m babel.messages.frontend extract -F babel.cfg -k _ -k n_:1,2 --no-location --sort-output --project rulebook \
	  --copyright-holder "rulebook contributors" -o tools/locales/rulebook.pot .
	$(PYTHON) -m rulebook.tools.i18n_extract tools/locales/rulebook.pot
	$(PYTHON) -m babel.messages.frontend update -i tools/locales/rulebook.pot -d tools/locales -D rulebook \
	  --no-fuzzy-matching --ignore-obsolete --width 100

clean:
	rm -rf build dist *.egg-info .pytest_cache
