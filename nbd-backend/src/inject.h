/* Latency, bandwidth, error and disconnect injection, plus statistics.
 * One struct inject per server; every knob can be changed at run time. */
#ifndef TIERNBD_INJECT_H
#define TIERNBD_INJECT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util.h"

enum opc { OPC_READ, OPC_WRITE, OPC_FLUSH, OPC_TRIM, OPC_N };

enum dist_kind { DIST_OFF, DIST_FIXED, DIST_UNIFORM, DIST_NORMAL, DIST_LOGNORMAL };

struct dist {
	enum dist_kind kind;
	double a, b;      /* as given: fixed a | uniform a..b | mean a, sd b */
	double mu, sigma; /* lognormal: parameters of the underlying normal */
};

#define INJECT_MAX_RULES 64
#define INJECT_HIST_N 28 /* bucket i: latency < 2^i us (last: the rest) */

struct err_rule {
	unsigned id;
	unsigned opmask;     /* 1 << enum opc */
	uint64_t start, end; /* byte range [start, end) */
	int64_t count;       /* hits left; -1 = unlimited */
	uint32_t err;        /* NBD wire error */
	uint64_t hits;
};

struct op_knobs {
	struct dist lat;
	uint32_t ppm, ppm_err;
	uint64_t every, every_err, seen;
	struct ts_rng lat_rng, err_rng;
};

struct op_stats {
	_Atomic uint64_t reqs, bytes, err_injected, err_other;
	_Atomic uint64_t delays, delay_ns;
	_Atomic uint64_t hist[INJECT_HIST_N];
};

struct inject {
	pthread_mutex_t lock;
	atomic_bool armed;   /* false: nothing injected, skip the lock */
	atomic_bool verbose;
	uint64_t seed;
	struct op_knobs op[OPC_N];
	struct err_rule rules[INJECT_MAX_RULES];
	unsigned nrules, next_id;
	uint64_t bw;         /* bytes per second, 0 = unlimited */
	uint64_t bw_free_ns; /* when the modelled link is next idle */
	int64_t disc_after;  /* requests to serve before a drop; -1 = off */
	struct op_stats st[OPC_N];
	_Atomic uint64_t conns_opened, conns_closed, disc_injected, proto_errors;
};

struct verdict {
	uint32_t err;         /* NBD error to return, 0 = none injected */
	bool disconnect;      /* drop the connection instead of replying */
	uint64_t deadline_ns; /* reply not before this; 0 = at once */
	uint64_t delay_ns;    /* injected delay: latency and bandwidth wait */
};

int inject_init(struct inject *in, uint64_t seed);
void inject_destroy(struct inject *in);

/* Decide the fate of one valid request arriving at now. */
void inject_decide(struct inject *in, enum opc op, uint64_t off, uint64_t len,
		   uint64_t now, struct verdict *v);

/* Account one reply.  lat_ns: from request arrival to reply sent. */
void inject_account(struct inject *in, enum opc op, uint64_t bytes,
		    uint32_t err, bool injected, uint64_t delay_ns,
		    uint64_t lat_ns);

/* Run one control command (already split into words).
 * Returns 0 on success, -1 on error (one line "error: ..." in out),
 * 1 if the command is not an injection command. */
int inject_command(struct inject *in, int argc, char **argv, struct ts_outbuf *out);

const char *opc_name(enum opc op);

/* For inject_cmd.c, with in->lock held: restart the generators from
 * in->seed; recompute in->armed after a knob changed. */
void inject_reseed_locked(struct inject *in);
void inject_rearm_locked(struct inject *in);

#endif
