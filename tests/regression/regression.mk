# regression.mk - the size-regression check of the samples in corpus/: `make
# check` fails when a sample's default-level archive grew by more than 0.5%
# (tests/regression/sizes.csv); `make update-sizes` records the current sizes.
CHECK_STEPS += tests/regression/check_sizes.sh

.PHONY: update-sizes
update-sizes: trz
	bash tests/regression/check_sizes.sh --update
