# python.mk - the Python binding (python/trz) and its Dask example in `make
# check`: tests/python/run.sh needs libtrz.so, ./trz and the C analyzers it
# compares with, and Debian's python3-dask, python3-distributed, numpy and
# pandas for /usr/bin/python3 (installed here as root; otherwise run.sh
# reports the tests as skipped).
PY_DEB_PKGS := python3-dask python3-distributed python3-numpy python3-pandas python3-pip python3-venv python3-setuptools python3-wheel
PY_TEST_PYTHON := /usr/bin/python3

.PHONY: python-deps
python-deps:
	@if ! $(PY_TEST_PYTHON) -c 'import dask, distributed, numpy, pandas, pip, setuptools, wheel, venv' 2>/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "trz: installing Python test dependencies: $(PY_DEB_PKGS)"; \
	    (apt-get install -y $(PY_DEB_PKGS) || (apt-get update && apt-get install -y $(PY_DEB_PKGS))) >/dev/null 2>&1 \
	      || echo "trz: could not install $(PY_DEB_PKGS); the python tests will be skipped"; \
	  else \
	    echo "trz: $(PY_DEB_PKGS) missing; the python tests will be skipped. Run as root:"; \
	    echo "  apt-get install -y $(PY_DEB_PKGS)"; \
	  fi; \
	fi

CHECK_DEPS += python-deps libtrz.so trz $(filter %/rst_stats %/bus_stats,$(ANALYZERS))
CHECK_STEPS += tests/python/run.sh tests/python/examples.sh
