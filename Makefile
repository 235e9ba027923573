# The two commands a new machine needs: `make play` and `make test`. Each installs what it needs.
PYTHON ?= python3
PIP = $(PYTHON) -m pip --disable-pip-version-check -q

.PHONY: install play test bench clean

install:
	$(PIP) install -e '.[test]'

play: install
	rulebook play

test: install
	$(PYTHON) -m pytest -q

bench: install
	$(PYTHON) -m benchmarks

clean:
	rm -rf build dist *.egg-info .pytest_cache
