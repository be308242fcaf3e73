# shellcheck shell=bash
# Harness self-test: the guest kernel panics in the middle of the run.
t_panics() { echo c >/proc/sysrq-trigger; }
