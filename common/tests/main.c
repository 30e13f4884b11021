#include "tests.h"

int main(void)
{
	struct ts_tap t;

	ts_tap_init(&t, stdout);
	test_rng(&t);
	test_parse(&t);
	test_time(&t);
	test_out(&t);
	test_tap(&t);
	return ts_tap_done(&t);
}
