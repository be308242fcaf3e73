# shellcheck shell=bash
# Harness self-test: one passing and one deliberately failing case.
t_passes() { true; }
t_deliberately_fails() { fail "this case fails on purpose"; }
