/* The injection command grammar: the control commands (and the start-up
 * options that stand for them) parsed and applied to the engine of
 * inject.c, and the show/stats/list reports. */
#define _GNU_SOURCE
#include "inject.h"
#include "proto.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int fail(struct ts_outbuf *out, const char *fmt, const char *arg)
{
	ts_outbuf_printf(out, "error: ");
	ts_outbuf_printf(out, fmt, arg ? arg : "");
	ts_outbuf_printf(out, "\n");
	return -1;
}

/* "read", "write,flush", "rw" (= read,write), "all"; "trim" and "zero"
 * are aliases of discard */
static int parse_ops(const char *s, unsigned *mask)
{
	char buf[64];
	char *save = NULL;

	if (strlen(s) >= sizeof buf)
		return -1;
	strcpy(buf, s);
	*mask = 0;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcmp(w, "all"))
			*mask |= (1u << OPC_N) - 1;
		else if (!strcmp(w, "rw"))
			*mask |= 1u << OPC_READ | 1u << OPC_WRITE;
		else if (!strcmp(w, "trim") || !strcmp(w, "zero"))
			*mask |= 1u << OPC_TRIM;
		else {
			int i;

			for (i = 0; i < OPC_N; i++)
				if (!strcmp(w, opc_name(i)))
					break;
			if (i == OPC_N)
				return -1;
			*mask |= 1u << i;
		}
	}
	return *mask ? 0 : -1;
}

static int parse_dist(const char *s, struct dist *d)
{
	char buf[128];
	char *colon, *p2;
	double a = 0, b = 0;

	memset(d, 0, sizeof *d);
	if (!strcmp(s, "off") || !strcmp(s, "0")) {
		d->kind = DIST_OFF;
		return 0;
	}
	if (strlen(s) >= sizeof buf)
		return -1;
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (!colon) { /* a bare duration means fixed */
		if (ts_parse_duration_us(buf, &a))
			return -1;
		/* a delay of 0 is off, whatever its unit, as on tierblk */
		d->kind = a > 0 ? DIST_FIXED : DIST_OFF;
		d->a = a;
		return 0;
	}
	*colon++ = '\0';
	p2 = strpbrk(colon, ",/");
	if (p2)
		*p2++ = '\0';
	if (ts_parse_duration_us(colon, &a))
		return -1;
	if (p2 && ts_parse_duration_us(p2, &b))
		return -1;
	if (!strcmp(buf, "fixed") && !p2) {
		d->kind = a > 0 ? DIST_FIXED : DIST_OFF;
	} else if (!strcmp(buf, "uniform") && p2) {
		if (b < a)
			return -1;
		d->kind = DIST_UNIFORM;
	} else if (!strcmp(buf, "normal") && p2) {
		d->kind = DIST_NORMAL;
	} else if (!strcmp(buf, "lognormal") && p2) {
		if (a == 0 && b > 0) /* no spread around a mean of 0 */
			return -1;
		d->kind = DIST_LOGNORMAL;
		if (a > 0) {
			double s2 = log(1.0 + (b * b) / (a * a));

			d->sigma = sqrt(s2);
			d->mu = log(a) - s2 / 2;
		}
	} else {
		return -1;
	}
	d->a = a;
	d->b = b;
	return 0;
}

/* A distribution as tierblk shows it too: durations with their unit. */
static void print_dist(struct ts_outbuf *out, const struct dist *d)
{
	static const char *const names[] = {
		[DIST_FIXED] = "fixed", [DIST_UNIFORM] = "uniform",
		[DIST_NORMAL] = "normal", [DIST_LOGNORMAL] = "lognormal",
	};
	char a[32], b[32];

	if (d->kind == DIST_OFF) {
		ts_outbuf_printf(out, "off");
		return;
	}
	ts_format_duration_ns(a, sizeof a, (uint64_t)llround(d->a * 1000));
	ts_format_duration_ns(b, sizeof b, (uint64_t)llround(d->b * 1000));
	if (d->kind == DIST_FIXED)
		ts_outbuf_printf(out, "fixed:%s", a);
	else
		ts_outbuf_printf(out, "%s:%s,%s", names[d->kind], a, b);
}

/* Parse trailing key=value words: errno=, count=. */
static int parse_kv(int argc, char **argv, uint32_t *err, int64_t *count,
		    struct ts_outbuf *out)
{
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "errno=", 6)) {
			if (nbd_errno_parse(argv[i] + 6, err))
				return fail(out, "bad errno '%s' (EPERM EIO ENOMEM EINVAL ENOSPC EOVERFLOW ENOTSUP ESHUTDOWN)", argv[i] + 6);
		} else if (count && !strncmp(argv[i], "count=", 6)) {
			uint64_t c;

			if (!strcmp(argv[i] + 6, "inf") || !strcmp(argv[i] + 6, "unlimited"))
				*count = -1;
			else if (ts_parse_uint(argv[i] + 6, 0, UINT64_MAX, &c) || c == 0 || c > INT64_MAX)
				return fail(out, "bad count '%s' (a positive number or inf)", argv[i] + 6);
			else
				*count = (int64_t)c;
		} else {
			return fail(out, "unexpected argument '%s'", argv[i]);
		}
	}
	return 0;
}

static void print_rule(struct ts_outbuf *out, const struct err_rule *r)
{
	ts_outbuf_printf(out, "id=%u ops=", r->id);
	for (int i = 0, first = 1; i < OPC_N; i++) {
		if (r->opmask & (1u << i)) {
			ts_outbuf_printf(out, "%s%s", first ? "" : ",", opc_name(i));
			first = 0;
		}
	}
	ts_outbuf_printf(out, " range=%llu+%llu", (unsigned long long)r->start,
		      (unsigned long long)(r->end - r->start));
	if (r->count < 0)
		ts_outbuf_printf(out, " count=inf");
	else
		ts_outbuf_printf(out, " count=%lld", (long long)r->count);
	ts_outbuf_printf(out, " errno=%s hits=%llu\n", nbd_errno_name(r->err),
		      (unsigned long long)r->hits);
}

/* The inclusive END of START-END, counted in its unit as tierblk does:
 * "13p" is the last byte of page 13, "8191" byte 8191. */
static int range_end(const char *s, uint64_t *last)
{
	const char *sfx = s;
	char one[16];
	uint64_t v, unit;

	while (*sfx >= '0' && *sfx <= '9')
		sfx++;
	if (strlen(sfx) + 2 > sizeof one)
		return -1;
	snprintf(one, sizeof one, "1%s", sfx);
	if (ts_parse_size(s, NBD_SIZE_FLAGS, &v) || ts_parse_size(one, NBD_SIZE_FLAGS, &unit) ||
	    v > UINT64_MAX - unit)
		return -1;
	*last = v + unit - 1;
	return 0;
}

static int cmd_error(struct inject *in, int argc, char **argv, struct ts_outbuf *out)
{
	unsigned mask;
	uint64_t n;

	if (argc < 2)
		return fail(out, "usage: error add|del|list|rate|every|clear ...", NULL);
	if (!strcmp(argv[1], "list")) {
		if (argc != 2)
			return fail(out, "usage: error list", NULL);
		for (unsigned i = 0; i < in->nrules; i++)
			print_rule(out, &in->rules[i]);
		for (int i = 0; i < OPC_N; i++) {
			ts_outbuf_printf(out, "rate %s %u errno=%s\n", opc_name(i),
				      in->op[i].ppm, nbd_errno_name(in->op[i].ppm_err));
			ts_outbuf_printf(out, "every %s %llu errno=%s\n", opc_name(i),
				      (unsigned long long)in->op[i].every,
				      nbd_errno_name((uint32_t)in->op[i].every_err));
		}
		return 0;
	}
	if (!strcmp(argv[1], "clear")) {
		if (argc != 2)
			return fail(out, "usage: error clear", NULL);
		in->nrules = 0;
		for (int i = 0; i < OPC_N; i++) {
			in->op[i].ppm = 0;
			in->op[i].every = 0;
		}
		return 0;
	}
	if (!strcmp(argv[1], "del")) {
		if (argc != 3)
			return fail(out, "usage: error del ID|all", NULL);
		if (!strcmp(argv[2], "all")) {
			in->nrules = 0;
			return 0;
		}
		if (ts_parse_uint(argv[2], 0, UINT64_MAX, &n))
			return fail(out, "bad rule id '%s'", argv[2]);
		for (unsigned i = 0; i < in->nrules; i++) {
			if (in->rules[i].id == n) {
				memmove(&in->rules[i], &in->rules[i + 1],
					(in->nrules - i - 1) * sizeof in->rules[0]);
				in->nrules--;
				return 0;
			}
		}
		return fail(out, "no rule with id %s", argv[2]);
	}
	if (argc < 4)
		return fail(out, "usage: error add OPS START[+LEN|-END] [count=N|inf] [errno=E] | error rate OPS RATE [errno=E] | error every OPS N [errno=E]", NULL);
	if (parse_ops(argv[2], &mask))
		return fail(out, "bad operation list '%s' (read write flush discard rw all)", argv[2]);
	if (!strcmp(argv[1], "add")) {
		struct err_rule r = { .opmask = mask, .count = -1, .err = NBD_EIO };
		char buf[80], *sep;
		uint64_t start, len = 1, last;
		int bad;

		if (strlen(argv[3]) >= sizeof buf)
			return fail(out, "bad range '%s'", argv[3]);
		strcpy(buf, argv[3]);
		/* START+LEN, or START-END with END inclusive (as tierblk) */
		sep = strpbrk(buf, "+-");
		if (sep && *sep == '-') {
			*sep++ = '\0';
			bad = ts_parse_size(buf, NBD_SIZE_FLAGS, &start) || range_end(sep, &last) ||
			      last < start || last == UINT64_MAX;
			len = bad ? 0 : last - start + 1;
		} else {
			if (sep)
				*sep++ = '\0';
			bad = ts_parse_size(buf, NBD_SIZE_FLAGS, &start) ||
			      (sep && (ts_parse_size(sep, NBD_SIZE_FLAGS, &len) || !len));
		}
		if (bad || start + len < start)
			return fail(out, "bad range '%s' (START[+LEN] or START-END, sizes with K M G s p suffix)", argv[3]);
		if (parse_kv(argc - 4, argv + 4, &r.err, &r.count, out))
			return -1;
		if (in->nrules == INJECT_MAX_RULES)
			return fail(out, "too many rules", NULL);
		r.start = start;
		r.end = start + len;
		r.id = in->next_id++;
		in->rules[in->nrules++] = r;
		ts_outbuf_printf(out, "id=%u\n", r.id);
		return 0;
	}
	if (!strcmp(argv[1], "rate") || !strcmp(argv[1], "every")) {
		bool rate = argv[1][0] == 'r';
		uint32_t err = NBD_EIO, ppm;

		if (rate ? ts_parse_rate_ppm(argv[3], &ppm) : ts_parse_uint(argv[3], 0, UINT64_MAX, &n))
			return fail(out, rate ? "bad rate '%s' (N%%, Nppm or ppm, at most 100%%)" : "bad count '%s'", argv[3]);
		if (rate)
			n = ppm;
		if (parse_kv(argc - 4, argv + 4, &err, NULL, out))
			return -1;
		for (int i = 0; i < OPC_N; i++) {
			if (!(mask & (1u << i)))
				continue;
			if (rate) {
				in->op[i].ppm = (uint32_t)n;
				in->op[i].ppm_err = err;
			} else {
				in->op[i].every = n;
				in->op[i].every_err = err;
				in->op[i].seen = 0;
			}
		}
		return 0;
	}
	return fail(out, "unknown error subcommand '%s'", argv[1]);
}

/* The counters tierblk's sysfs stats has too, by the same names and in
 * its "key value" form (docs/conventions.md); the details follow. */
static void print_common_stats(struct inject *in, struct ts_outbuf *out)
{
	static const char *const plural[OPC_N] = {
		[OPC_READ] = "reads", [OPC_WRITE] = "writes",
		[OPC_FLUSH] = "flushes", [OPC_TRIM] = "discards",
	};
	static const enum opc order[OPC_N] = { OPC_READ, OPC_WRITE, OPC_TRIM, OPC_FLUSH };
	uint64_t delays = 0, delay_ns = 0;

	for (int i = 0; i < OPC_N; i++)
		ts_outbuf_printf(out, "%s %llu\n", plural[order[i]],
			      (unsigned long long)atomic_load(&in->st[order[i]].reqs));
	for (int i = 0; i < OPC_N; i++)
		if (order[i] != OPC_FLUSH)
			ts_outbuf_printf(out, "%s_bytes %llu\n", opc_name(order[i]),
				      (unsigned long long)atomic_load(&in->st[order[i]].bytes));
	for (int i = 0; i < OPC_N; i++) {
		ts_outbuf_printf(out, "%s_errors %llu\n", opc_name(order[i]),
			      (unsigned long long)atomic_load(&in->st[order[i]].err_injected));
		delays += atomic_load(&in->st[i].delays);
		delay_ns += atomic_load(&in->st[i].delay_ns);
	}
	ts_outbuf_printf(out, "delayed_ops %llu\ndelay_total_us %llu\n",
		      (unsigned long long)delays, (unsigned long long)(delay_ns / 1000));
}

static void print_stats(struct inject *in, struct ts_outbuf *out)
{
	print_common_stats(in, out);
	ts_outbuf_printf(out, "conns_opened=%llu conns_closed=%llu disconnects_injected=%llu protocol_errors=%llu\n",
		      (unsigned long long)atomic_load(&in->conns_opened),
		      (unsigned long long)atomic_load(&in->conns_closed),
		      (unsigned long long)atomic_load(&in->disc_injected),
		      (unsigned long long)atomic_load(&in->proto_errors));
	for (int i = 0; i < OPC_N; i++) {
		struct op_stats *s = &in->st[i];
		uint64_t h[INJECT_HIST_N], total = 0, acc = 0;
		uint64_t p50 = 0, p99 = 0;

		for (int b = 0; b < INJECT_HIST_N; b++) {
			h[b] = atomic_load(&s->hist[b]);
			total += h[b];
		}
		for (int b = 0; b < INJECT_HIST_N; b++) {
			acc += h[b];
			if (!p50 && total && acc * 2 >= total)
				p50 = UINT64_C(1) << b;
			if (!p99 && total && acc * 100 >= total * 99)
				p99 = UINT64_C(1) << b;
		}
		ts_outbuf_printf(out, "op=%s requests=%llu bytes=%llu injected_errors=%llu other_errors=%llu injected_delays=%llu injected_delay_us=%llu lat_p50_lt_us=%llu lat_p99_lt_us=%llu\n",
			      opc_name(i),
			      (unsigned long long)atomic_load(&s->reqs),
			      (unsigned long long)atomic_load(&s->bytes),
			      (unsigned long long)atomic_load(&s->err_injected),
			      (unsigned long long)atomic_load(&s->err_other),
			      (unsigned long long)atomic_load(&s->delays),
			      (unsigned long long)(atomic_load(&s->delay_ns) / 1000),
			      (unsigned long long)p50, (unsigned long long)p99);
		ts_outbuf_printf(out, "hist=%s", opc_name(i));
		for (int b = 0; b < INJECT_HIST_N; b++) {
			if (!h[b])
				continue;
			if (b == INJECT_HIST_N - 1)
				ts_outbuf_printf(out, " >=%lluus:%llu",
					      (unsigned long long)(UINT64_C(1) << (b - 1)),
					      (unsigned long long)h[b]);
			else
				ts_outbuf_printf(out, " <%lluus:%llu",
					      (unsigned long long)(UINT64_C(1) << b),
					      (unsigned long long)h[b]);
		}
		ts_outbuf_printf(out, "\n");
	}
}

static void reset_stats(struct inject *in)
{
	for (int i = 0; i < OPC_N; i++) {
		struct op_stats *s = &in->st[i];

		atomic_store(&s->reqs, 0);
		atomic_store(&s->bytes, 0);
		atomic_store(&s->err_injected, 0);
		atomic_store(&s->err_other, 0);
		atomic_store(&s->delays, 0);
		atomic_store(&s->delay_ns, 0);
		for (int b = 0; b < INJECT_HIST_N; b++)
			atomic_store(&s->hist[b], 0);
	}
	atomic_store(&in->disc_injected, 0);
	atomic_store(&in->proto_errors, 0);
}

static void show(struct inject *in, struct ts_outbuf *out)
{
	ts_outbuf_printf(out, "seed %llu\n", (unsigned long long)in->seed);
	for (int i = 0; i < OPC_N; i++) {
		ts_outbuf_printf(out, "latency %s ", opc_name(i));
		print_dist(out, &in->op[i].lat);
		ts_outbuf_printf(out, "\n");
	}
	if (in->bw)
		ts_outbuf_printf(out, "bandwidth %llu\n", (unsigned long long)in->bw);
	else
		ts_outbuf_printf(out, "bandwidth off\n");
	for (int i = 0; i < OPC_N; i++) {
		ts_outbuf_printf(out, "error rate %s %u errno=%s\n", opc_name(i),
			      in->op[i].ppm, nbd_errno_name(in->op[i].ppm_err));
		ts_outbuf_printf(out, "error every %s %llu errno=%s\n", opc_name(i),
			      (unsigned long long)in->op[i].every,
			      nbd_errno_name((uint32_t)in->op[i].every_err));
	}
	for (unsigned i = 0; i < in->nrules; i++) {
		ts_outbuf_printf(out, "# rule ");
		print_rule(out, &in->rules[i]);
	}
	if (in->disc_after >= 0)
		ts_outbuf_printf(out, "disconnect after %lld\n", (long long)in->disc_after);
	else
		ts_outbuf_printf(out, "disconnect after off\n");
	ts_outbuf_printf(out, "verbose %s\n", atomic_load(&in->verbose) ? "on" : "off");
}

static int command_locked(struct inject *in, int argc, char **argv, struct ts_outbuf *out)
{
	const char *c = argv[0];
	uint64_t n;

	if (!strcmp(c, "latency")) {
		unsigned mask;
		struct dist d;

		if (argc != 3)
			return fail(out, "usage: latency OPS off|D|fixed:D|uniform:MIN,MAX|normal:MEAN,SD|lognormal:MEAN,SD", NULL);
		if (parse_ops(argv[1], &mask))
			return fail(out, "bad operation list '%s' (read write flush discard rw all)", argv[1]);
		if (parse_dist(argv[2], &d))
			return fail(out, "bad distribution '%s'", argv[2]);
		for (int i = 0; i < OPC_N; i++)
			if (mask & (1u << i))
				in->op[i].lat = d;
		return 0;
	}
	if (!strcmp(c, "bandwidth")) {
		if (argc != 2)
			return fail(out, "usage: bandwidth BYTES_PER_SEC|off", NULL);
		if (!strcmp(argv[1], "off"))
			n = 0;
		else if (ts_parse_size(argv[1], NBD_SIZE_FLAGS, &n))
			return fail(out, "bad bandwidth '%s'", argv[1]);
		in->bw = n;
		in->bw_free_ns = 0;
		return 0;
	}
	if (!strcmp(c, "seed")) {
		if (argc != 2 || ts_parse_uint(argv[1], 0, UINT64_MAX, &n))
			return fail(out, "usage: seed N", NULL);
		in->seed = n;
		inject_reseed_locked(in);
		return 0;
	}
	if (!strcmp(c, "error"))
		return cmd_error(in, argc, argv, out);
	if (!strcmp(c, "disconnect") && argc >= 2 && !strcmp(argv[1], "after")) {
		if (argc != 3)
			return fail(out, "usage: disconnect after N|off", NULL);
		if (!strcmp(argv[2], "off"))
			in->disc_after = -1;
		else if (ts_parse_uint(argv[2], 0, UINT64_MAX, &n) || n > INT64_MAX)
			return fail(out, "bad request count '%s'", argv[2]);
		else
			in->disc_after = (int64_t)n;
		return 0;
	}
	if (!strcmp(c, "verbose")) {
		if (argc != 2 || (strcmp(argv[1], "on") && strcmp(argv[1], "off")))
			return fail(out, "usage: verbose on|off", NULL);
		atomic_store(&in->verbose, !strcmp(argv[1], "on"));
		return 0;
	}
	if (!strcmp(c, "stats")) {
		if (argc == 2 && !strcmp(argv[1], "reset")) {
			reset_stats(in);
			return 0;
		}
		if (argc != 1)
			return fail(out, "usage: stats [reset]", NULL);
		print_stats(in, out);
		return 0;
	}
	if (!strcmp(c, "show")) {
		show(in, out);
		return 0;
	}
	return 1;
}

int inject_command(struct inject *in, int argc, char **argv, struct ts_outbuf *out)
{
	int r;

	if (argc < 1)
		return 1;
	pthread_mutex_lock(&in->lock);
	r = command_locked(in, argc, argv, out);
	inject_rearm_locked(in);
	pthread_mutex_unlock(&in->lock);
	return r;
}
