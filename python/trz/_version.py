"""The package version: the C library's (include/trz.h), checked by the tests."""
__version__ = "0.23.0"
