# bench.mk - benchmarks, the demo and the analyzer examples.  Parts live in
# their own fragments; each may add to CHECK_DEPS (things `make check`
# builds) and CHECK_STEPS (scripts it runs, each ending "N passed, M failed").
ANALYZERS :=
-include bench/analyzers/analyzers.mk
-include bench/demo.mk
analyzers: $(ANALYZERS)
