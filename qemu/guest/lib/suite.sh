# Sizes by suite. qemu/test.sh passes the run's suite to the guest as
# TIERSWAP_SUITE (quick for `make test`, full for `make test-full`); a test
# of the quick suite keeps its checks and shrinks only its sizes and times.

# by_suite QUICK FULL: the value for this run's suite (full when unset).
by_suite() {
	if [ "${TIERSWAP_SUITE:-full}" = quick ]; then echo "$1"; else echo "$2"; fi
}
