# The two commands a new machine needs: `make play` and `make test`. Each installs what it needs.
PYTHON ?= python3
PIP = $(PYTHON) -m pip --disable-pip-version-check -q

.PHONY: install play test bench catalogs clean

install:
	$(PIP) install -e '.[test]'

play: install
	$(PYTHON) -m rulebook.interpreter play

test: install
	$(PYTHON) -m pytest -q

bench: install
	$(PYTHON) -m benchmarks

# Page-frame texts: extract the English message ids from tools/ (see babel.cfg) and merge them into
# the German and Dutch catalogs; then translate the new or changed entries (tests fail until done).
catalogs: install
	pybabel extract -F babel.cfg -k _ -k n_:1,2 --no-location --sort-output --project rulebook \
	  --copyright-holder "rulebook contributors" -o tools/locales/rulebook.pot .
	$(PYTHON) -m rulebook.tools.i18n_extract tools/locales/rulebook.pot
	pybabel update -i tools/locales/rulebook.pot -d tools/locales -D rulebook \
	  --no-fuzzy-matching --ignore-obsolete --width 100

clean:
	rm -rf build dist *.egg-info .pytest_cache
