/*
 * Result output: "key=value" lines (default) or one JSON object per line
 * (--json). Keys are [a-z0-9_]; values never contain spaces or newlines.
 */
#ifndef TIERSWAP_OUT_H
#define TIERSWAP_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ts_out {
	FILE *f;
	bool json;
	bool first;
};

void ts_out_begin(struct ts_out *o, FILE *f, bool json);
void ts_out_u64(struct ts_out *o, const char *key, uint64_t v);
void ts_out_i64(struct ts_out *o, const char *key, int64_t v);
void ts_out_dbl(struct ts_out *o, const char *key, double v, int prec);
void ts_out_str(struct ts_out *o, const char *key, const char *v);
void ts_out_end(struct ts_out *o);

#endif
