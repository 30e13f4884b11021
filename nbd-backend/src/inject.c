/* The injection engine: per-request decisions (latency, errors,
 * disconnects) and accounting; the command grammar is inject_cmd.c. */
#define _GNU_SOURCE
#include "inject.h"
#include "proto.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* OPC_TRIM is NBD's TRIM and WRITE_ZEROES: "discard" in the vocabulary the
 * tiers share (docs/conventions.md) */
static const char *const opc_names[OPC_N] = { "read", "write", "flush", "discard" };

const char *opc_name(enum opc op)
{
	return op < OPC_N ? opc_names[op] : "?";
}

/* With in->lock held (or before the engine is shared): restart the
 * generators from in->seed. */
void inject_reseed_locked(struct inject *in)
{
	for (int i = 0; i < OPC_N; i++) {
		ts_rng_seed(&in->op[i].lat_rng, in->seed * 8 + (uint64_t)i * 2);
		ts_rng_seed(&in->op[i].err_rng, in->seed * 8 + (uint64_t)i * 2 + 1);
		in->op[i].seen = 0;
	}
}

int inject_init(struct inject *in, uint64_t seed)
{
	memset(in, 0, sizeof *in);
	if (pthread_mutex_init(&in->lock, NULL))
		return -1;
	in->seed = seed;
	in->disc_after = -1;
	in->next_id = 1;
	for (int i = 0; i < OPC_N; i++) {
		in->op[i].ppm_err = NBD_EIO;
		in->op[i].every_err = NBD_EIO;
	}
	inject_reseed_locked(in);
	return 0;
}

void inject_destroy(struct inject *in)
{
	pthread_mutex_destroy(&in->lock);
}

/* Called with the lock held after any knob changed. */
void inject_rearm_locked(struct inject *in)
{
	bool armed = in->bw || in->disc_after >= 0 || in->nrules;

	for (int i = 0; i < OPC_N; i++)
		armed = armed || in->op[i].lat.kind != DIST_OFF ||
			in->op[i].ppm || in->op[i].every;
	atomic_store(&in->armed, armed);
}

static double sample(const struct dist *d, struct ts_rng *r)
{
	double v;

	switch (d->kind) {
	case DIST_FIXED:
		return d->a;
	case DIST_UNIFORM:
		return d->a + (d->b - d->a) * ts_rng_double(r);
	case DIST_NORMAL:
		v = d->a + d->b * ts_rng_normal(r);
		return v < 0 ? 0 : v;
	case DIST_LOGNORMAL:
		if (d->a <= 0)
			return 0;
		v = exp(d->mu + d->sigma * ts_rng_normal(r));
		return v > 600e6 ? 600e6 : v;
	default:
		return 0;
	}
}

void inject_decide(struct inject *in, enum opc op, uint64_t off, uint64_t len,
		   uint64_t now, struct verdict *v)
{
	struct op_knobs *k = &in->op[op];
	uint64_t end = off + (len ? len : 1);
	uint64_t t = now;
	double d;

	v->err = 0;
	v->disconnect = false;
	v->deadline_ns = 0;
	v->delay_ns = 0;
	if (!atomic_load_explicit(&in->armed, memory_order_relaxed))
		return;

	pthread_mutex_lock(&in->lock);
	if (in->disc_after >= 0) {
		if (in->disc_after == 0) {
			in->disc_after = -1;
			v->disconnect = true;
			inject_rearm_locked(in);
			pthread_mutex_unlock(&in->lock);
			return;
		}
		in->disc_after--;
	}

	/* error sources: LBA rules first, then every_nth, then the rate;
	 * the counter and the generator advance on every request so that a
	 * given seed gives the same sequence whatever else is configured */
	for (unsigned i = 0; i < in->nrules; i++) {
		struct err_rule *r = &in->rules[i];

		if (!(r->opmask & (1u << op)) || r->count == 0)
			continue;
		if (off < r->end && end > r->start) {
			if (r->count > 0)
				r->count--;
			r->hits++;
			v->err = r->err;
			break;
		}
	}
	k->seen++;
	if (k->every && k->seen % k->every == 0 && !v->err)
		v->err = (uint32_t)k->every_err;
	if (k->ppm) {
		uint64_t x = ts_rng_next(&k->err_rng) % 1000000u;

		if (x < k->ppm && !v->err)
			v->err = k->ppm_err;
	}

	d = sample(&k->lat, &k->lat_rng);
	if (in->bw && (op == OPC_READ || op == OPC_WRITE)) {
		uint64_t start = in->bw_free_ns > now ? in->bw_free_ns : now;

		in->bw_free_ns = start + (uint64_t)((double)len * 1e9 / (double)in->bw);
		t = in->bw_free_ns;
	}
	pthread_mutex_unlock(&in->lock);

	t += (uint64_t)llround(d * 1000.0);
	if (t > now) {
		/* counted as tierblk counts it: the sample and the link's wait */
		v->delay_ns = t - now;
		v->deadline_ns = t;
	}
}

void inject_account(struct inject *in, enum opc op, uint64_t bytes,
		    uint32_t err, bool injected, uint64_t delay_ns,
		    uint64_t lat_ns)
{
	struct op_stats *s = &in->st[op];
	uint64_t us = lat_ns / 1000;
	unsigned b = 0;

	atomic_fetch_add_explicit(&s->reqs, 1, memory_order_relaxed);
	/* bytes of every request received, failed or not, as tierblk */
	atomic_fetch_add_explicit(&s->bytes, bytes, memory_order_relaxed);
	if (err && injected)
		atomic_fetch_add_explicit(&s->err_injected, 1, memory_order_relaxed);
	else if (err)
		atomic_fetch_add_explicit(&s->err_other, 1, memory_order_relaxed);
	if (delay_ns) {
		atomic_fetch_add_explicit(&s->delays, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&s->delay_ns, delay_ns, memory_order_relaxed);
	}
	while (b < INJECT_HIST_N - 1 && us >= (UINT64_C(1) << b))
		b++;
	atomic_fetch_add_explicit(&s->hist[b], 1, memory_order_relaxed);
}
