# demo.mk - `make demo`: trz's sizes (against xz -9), speeds and verified
# round trips on the generated samples in corpus/; well under a minute.
demo: all
	@bash bench/demo.sh
