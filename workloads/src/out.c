#include "out.h"

#include <inttypes.h>

void ts_out_begin(struct ts_out *o, FILE *f, bool json)
{
	o->f = f;
	o->json = json;
	o->first = true;
	if (json)
		fputc('{', f);
}

static void key(struct ts_out *o, const char *k)
{
	if (o->json) {
		fprintf(o->f, "%s\"%s\":", o->first ? "" : ",", k);
	} else {
		fprintf(o->f, "%s=", k);
	}
	o->first = false;
}

static void end_item(struct ts_out *o)
{
	if (!o->json)
		fputc('\n', o->f);
}

void ts_out_u64(struct ts_out *o, const char *k, uint64_t v)
{
	key(o, k);
	fprintf(o->f, "%" PRIu64, v);
	end_item(o);
}

void ts_out_i64(struct ts_out *o, const char *k, int64_t v)
{
	key(o, k);
	fprintf(o->f, "%" PRId64, v);
	end_item(o);
}

void ts_out_dbl(struct ts_out *o, const char *k, double v, int prec)
{
	key(o, k);
	fprintf(o->f, "%.*f", prec, v);
	end_item(o);
}

void ts_out_str(struct ts_out *o, const char *k, const char *v)
{
	key(o, k);
	if (o->json) {
		fputc('"', o->f);
		for (const char *p = v; *p; p++) {
			if (*p == '"' || *p == '\\')
				fputc('\\', o->f);
			if ((unsigned char)*p >= 0x20)
				fputc(*p, o->f);
		}
		fputc('"', o->f);
	} else {
		fputs(v, o->f);
	}
	end_item(o);
}

void ts_out_end(struct ts_out *o)
{
	if (o->json)
		fputs("}\n", o->f);
	fflush(o->f);
}
