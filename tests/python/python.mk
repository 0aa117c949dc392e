# python.mk - the Python binding (python/trz) and its Dask example in `make
# check`: tests/python/run.sh needs libtrz.so, ./trz and the C analyzers it
# compares with, and Debian's python3-dask, python3-distributed, numpy and
# pandas for /usr/bin/python3; examples.sh also makes virtual environments
# (python3-venv).  Installed here as root when missing; otherwise run.sh
# reports the tests as skipped.
PY_DEB_PKGS := python3-dask python3-distributed python3-numpy python3-pandas python3-venv
PY_TEST_PYTHON := /usr/bin/python3

# The probe imports what the tests import, and ensurepip, which a venv
# needs and only python3-venv provides on Debian.  Not pip and setuptools
# in one process: on Debian 12, importing pip turns setuptools' distutils
# shim off, and `import setuptools` then fails its own assertion, so a
# probe of both failed on every run and installed again (the tests need
# neither: install-python copies the package).  After the other tools'
# check, so that two apt-get runs never compete for the dpkg lock; first
# among the check's steps, so that its message comes early.
.PHONY: python-deps print-py-deb-pkgs
print-py-deb-pkgs:
	@echo $(PY_DEB_PKGS)

python-deps: $(B)/checkdeps.ok
	@if ! $(PY_TEST_PYTHON) -c 'import dask, distributed, numpy, pandas, venv, ensurepip' 2>/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "trz: installing Python test dependencies: $(PY_DEB_PKGS)"; \
	    (apt-get install -y $(PY_DEB_PKGS) || (apt-get update && apt-get install -y $(PY_DEB_PKGS))) >/dev/null 2>&1 \
	      || echo "trz: could not install $(PY_DEB_PKGS); the python tests will be skipped"; \
	  else \
	    echo "trz: $(PY_DEB_PKGS) missing; the python tests will be skipped. Run as root:"; \
	    echo "  apt-get install -y $(PY_DEB_PKGS)"; \
	  fi; \
	fi

CHECK_FIRST += python-deps
CHECK_DEPS += libtrz.so trz $(filter %/rst_stats %/bus_stats,$(ANALYZERS))
CHECK_STEPS += tests/python/run.sh tests/python/examples.sh tests/python/deps.sh
