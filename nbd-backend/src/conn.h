/* One NBD connection: fixed newstyle handshake, then the transmission
 * phase with simple replies.  The engine talks to the peer only through
 * struct conn_io, so the fuzz harness can drive it from a byte buffer. */
#ifndef TIERNBD_CONN_H
#define TIERNBD_CONN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "backend.h"
#include "inject.h"

struct conn_io {
	/* like recv(2): bytes read, 0 at end of stream, -1 on error;
	 * all: the caller wants len bytes (MSG_WAITALL), a hint */
	ssize_t (*recv)(void *ctx, void *buf, size_t len, bool all);
	/* like sendmsg(2) on the iovec: bytes written or -1 */
	ssize_t (*sendv)(void *ctx, const struct iovec *iov, int iovcnt);
	/* optional: called when the handshake ends (true) */
	void (*phase)(void *ctx, bool transmission);
	/* optional: tear the link down so that blocked calls return */
	void (*shutdown)(void *ctx);
	void *ctx;
};

struct conn_cfg {
	struct backend *be;
	struct inject *in;
	const char *export_name; /* "" is always accepted as the default */
	const char *description;
	uint32_t max_request;    /* largest READ/WRITE payload accepted */
	unsigned max_options;    /* options per handshake before we hang up */
};

struct pending {
	uint64_t cookie, off, arrival, deadline, delay_ns;
	uint32_t len, err;
	uint8_t opc;
	bool injected;
};

struct conn {
	const struct conn_cfg *cfg;
	struct conn_io io;
	unsigned id;
	char peer[80];

	uint8_t *rbuf;   /* receive buffer (request headers, small payloads) */
	size_t rpos, rlen, rcap;
	uint8_t *dbuf;   /* reader's data and option buffer */
	uint8_t *sbuf;   /* sender's data buffer */
	size_t dcap;

	bool no_zeroes;
	uint64_t nreq;
	const char *close_reason;
	bool disc;       /* client sent NBD_CMD_DISC */
	atomic_bool dead;

	pthread_mutex_t send_lock;

	/* delayed replies, ordered by deadline; served by conn_sender() */
	bool async;
	pthread_mutex_t qlock;
	pthread_cond_t qcond, qspace;
	struct pending *heap;
	unsigned nheap, heapcap;
	bool q_drain, q_stop;
};

/* Allocate every buffer once; returns 0 or -1. */
int conn_alloc(struct conn *c, const struct conn_cfg *cfg, size_t bufsize,
	       unsigned queue_depth);
void conn_free(struct conn *c);
/* Prepare a (reused) connection for a new peer. */
void conn_reset(struct conn *c, const struct conn_io *io, unsigned id,
		const char *peer, bool async);
/* Handshake and transmission; returns when the connection is over. */
void conn_run(struct conn *c);
/* Sender thread body: sends delayed replies when they fall due. */
void *conn_sender(void *arg);
/* Ask the sender to stop: after the queue drains (drain) or at once. */
void conn_stop_sender(struct conn *c, bool drain);

#endif
