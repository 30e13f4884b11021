#define _GNU_SOURCE
#include "conn.h"
#include "proto.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#define OPT_MAX_LEN   (64u * 1024)     /* option payloads we read */
#define OPT_SKIP_MAX  (1u << 20)       /* larger than this: hang up */
#define RBUF_SIZE     (64u * 1024)

static void *alloc_aligned(size_t n)
{
	void *p = NULL;

	if (posix_memalign(&p, BACKEND_ALIGN, n))
		return NULL;
	memset(p, 0, n); /* touch it now: locked and present from the start */
	return p;
}

int conn_alloc(struct conn *c, const struct conn_cfg *cfg, size_t bufsize,
	       unsigned queue_depth)
{
	pthread_condattr_t ca;

	memset(c, 0, sizeof *c);
	c->cfg = cfg;
	if (bufsize < OPT_MAX_LEN)
		bufsize = OPT_MAX_LEN;
	bufsize = (bufsize + BACKEND_ALIGN - 1) & ~(size_t)(BACKEND_ALIGN - 1);
	c->rcap = RBUF_SIZE;
	c->dcap = bufsize;
	c->heapcap = queue_depth ? queue_depth : 1;
	c->rbuf = alloc_aligned(c->rcap);
	c->dbuf = alloc_aligned(c->dcap);
	c->sbuf = alloc_aligned(c->dcap);
	c->heap = calloc(c->heapcap, sizeof c->heap[0]);
	if (!c->rbuf || !c->dbuf || !c->sbuf || !c->heap)
		goto fail;
	memset(c->heap, 0, c->heapcap * sizeof c->heap[0]);
	pthread_mutex_init(&c->send_lock, NULL);
	pthread_mutex_init(&c->qlock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->qcond, &ca);
	pthread_cond_init(&c->qspace, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
fail:
	free(c->rbuf);
	free(c->dbuf);
	free(c->sbuf);
	free(c->heap);
	memset(c, 0, sizeof *c);
	return -1;
}

void conn_free(struct conn *c)
{
	if (!c->rbuf)
		return;
	pthread_mutex_destroy(&c->send_lock);
	pthread_mutex_destroy(&c->qlock);
	pthread_cond_destroy(&c->qcond);
	pthread_cond_destroy(&c->qspace);
	free(c->rbuf);
	free(c->dbuf);
	free(c->sbuf);
	free(c->heap);
	memset(c, 0, sizeof *c);
}

void conn_reset(struct conn *c, const struct conn_io *io, unsigned id,
		const char *peer, bool async)
{
	c->io = *io;
	c->id = id;
	snprintf(c->peer, sizeof c->peer, "%s", peer ? peer : "?");
	c->rpos = c->rlen = 0;
	c->no_zeroes = false;
	c->nreq = 0;
	c->close_reason = "closed";
	c->disc = false;
	atomic_store(&c->dead, false);
	c->async = async;
	c->nheap = 0;
	c->q_drain = c->q_stop = false;
}

/* ---- low-level I/O ---- */

static void mark_dead(struct conn *c, const char *why)
{
	if (!atomic_exchange(&c->dead, true)) {
		c->close_reason = why;
		if (c->io.shutdown)
			c->io.shutdown(c->io.ctx);
	}
}

/* Read exactly n bytes.  0 on success, -1 on end of stream or error. */
static int rd(struct conn *c, void *dst, size_t n)
{
	uint8_t *p = dst;
	size_t avail = c->rlen - c->rpos;

	if (avail) {
		size_t k = avail < n ? avail : n;

		memcpy(p, c->rbuf + c->rpos, k);
		c->rpos += k;
		p += k;
		n -= k;
	}
	while (n) {
		ssize_t r;

		if (n >= c->rcap / 2) {
			r = c->io.recv(c->io.ctx, p, n, true);
			if (r <= 0)
				return -1;
			p += r;
			n -= (size_t)r;
			continue;
		}
		r = c->io.recv(c->io.ctx, c->rbuf, c->rcap, false);
		if (r <= 0)
			return -1;
		c->rlen = (size_t)r;
		c->rpos = (size_t)r < n ? (size_t)r : n;
		memcpy(p, c->rbuf, c->rpos);
		p += c->rpos;
		n -= c->rpos;
	}
	return 0;
}

static int skip(struct conn *c, uint64_t n)
{
	while (n) {
		size_t k = n < c->dcap ? (size_t)n : c->dcap;

		if (rd(c, c->dbuf, k))
			return -1;
		n -= k;
	}
	return 0;
}

/* Send the whole iovec (modified in place).  Caller holds send_lock
 * in the transmission phase. */
static int sendv_all(struct conn *c, struct iovec *iov, int cnt)
{
	while (cnt) {
		ssize_t n = c->io.sendv(c->io.ctx, iov, cnt);

		if (n < 0) {
			mark_dead(c, "send failed");
			return -1;
		}
		while (cnt && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt) {
			iov->iov_base = (uint8_t *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

static int send_buf(struct conn *c, const void *p, size_t n)
{
	struct iovec iov = { .iov_base = (void *)p, .iov_len = n };

	return sendv_all(c, &iov, 1);
}

/* ---- handshake ---- */

static int opt_reply(struct conn *c, uint32_t opt, uint32_t type,
		     const void *data, uint32_t len)
{
	uint8_t h[20];
	struct iovec iov[2] = {
		{ .iov_base = h, .iov_len = sizeof h },
		{ .iov_base = (void *)data, .iov_len = len },
	};

	put_be64(h, NBD_REP_MAGIC);
	put_be32(h + 8, opt);
	put_be32(h + 12, type);
	put_be32(h + 16, len);
	return sendv_all(c, iov, len ? 2 : 1);
}

static int opt_error(struct conn *c, uint32_t opt, uint32_t type, const char *msg)
{
	return opt_reply(c, opt, type, msg, (uint32_t)strlen(msg));
}

static uint16_t tflags(const struct conn *c)
{
	uint16_t f = NBD_FLAG_HAS_FLAGS | NBD_FLAG_SEND_FLUSH | NBD_FLAG_SEND_FUA |
		     NBD_FLAG_SEND_TRIM | NBD_FLAG_SEND_WRITE_ZEROES |
		     NBD_FLAG_CAN_MULTI_CONN;

	if (c->cfg->be->read_only)
		f |= NBD_FLAG_READ_ONLY;
	return f;
}

static bool name_ok(const struct conn *c, const uint8_t *name, uint32_t len)
{
	const char *e = c->cfg->export_name ? c->cfg->export_name : "";

	return len == 0 || (len == strlen(e) && !memcmp(name, e, len));
}

static int info_reply(struct conn *c, uint32_t opt, uint16_t type,
		      const void *data, uint32_t len)
{
	uint8_t b[2 + NBD_MAX_STRING];

	if (len > NBD_MAX_STRING)
		len = NBD_MAX_STRING;
	put_be16(b, type);
	memcpy(b + 2, data, len);
	return opt_reply(c, opt, NBD_REP_INFO, b, len + 2);
}

/* NBD_OPT_INFO / NBD_OPT_GO.  Returns 1 to enter transmission, 0 to go
 * on haggling, -1 to hang up. */
static int opt_info_go(struct conn *c, uint32_t opt, const uint8_t *d, uint32_t len)
{
	uint32_t namelen;
	uint16_t nreq;
	bool want_name = false, want_desc = false;
	uint8_t b[14];
	const char *e = c->cfg->export_name ? c->cfg->export_name : "";

	if (len < 6)
		return opt_error(c, opt, NBD_REP_ERR_INVALID, "option too short");
	namelen = get_be32(d);
	if (namelen > len - 6 || namelen > NBD_MAX_STRING)
		return opt_error(c, opt, NBD_REP_ERR_INVALID, "bad export name length");
	nreq = get_be16(d + 4 + namelen);
	if (len != 4 + namelen + 2 + 2u * nreq)
		return opt_error(c, opt, NBD_REP_ERR_INVALID, "bad option length");
	if (!name_ok(c, d + 4, namelen))
		return opt_error(c, opt, NBD_REP_ERR_UNKNOWN, "no such export");
	for (uint16_t i = 0; i < nreq; i++) {
		uint16_t t = get_be16(d + 4 + namelen + 2 + 2u * i);

		want_name |= t == NBD_INFO_NAME;
		want_desc |= t == NBD_INFO_DESCRIPTION;
	}
	put_be16(b, NBD_INFO_EXPORT);
	put_be64(b + 2, c->cfg->be->size);
	put_be16(b + 10, tflags(c));
	if (opt_reply(c, opt, NBD_REP_INFO, b, 12))
		return -1;
	if (want_name && info_reply(c, opt, NBD_INFO_NAME, e, (uint32_t)strlen(e)))
		return -1;
	if (want_desc && c->cfg->description &&
	    info_reply(c, opt, NBD_INFO_DESCRIPTION, c->cfg->description,
		       (uint32_t)strlen(c->cfg->description)))
		return -1;
	/* block sizes are sent whether asked for or not (the protocol
	 * allows it): minimum 1, preferred 4K, maximum max_request */
	put_be32(b, 1);
	put_be32(b + 4, 4096);
	put_be32(b + 8, c->cfg->max_request);
	if (info_reply(c, opt, NBD_INFO_BLOCK_SIZE, b, 12))
		return -1;
	if (opt_reply(c, opt, NBD_REP_ACK, NULL, 0))
		return -1;
	return opt == NBD_OPT_GO ? 1 : 0;
}

/* 0: enter transmission; -1: hang up. */
static int handshake(struct conn *c)
{
	uint8_t b[18];
	uint32_t cflags;
	struct inject *in = c->cfg->in;

	put_be64(b, NBD_MAGIC);
	put_be64(b + 8, NBD_IHAVEOPT);
	put_be16(b + 16, NBD_FLAG_FIXED_NEWSTYLE | NBD_FLAG_NO_ZEROES);
	if (send_buf(c, b, 18))
		return -1;
	if (rd(c, b, 4)) {
		c->close_reason = "closed during handshake";
		return -1;
	}
	cflags = get_be32(b);
	if (cflags & ~(uint32_t)(NBD_FLAG_C_FIXED_NEWSTYLE | NBD_FLAG_C_NO_ZEROES)) {
		c->close_reason = "unknown client flags";
		atomic_fetch_add(&in->proto_errors, 1);
		return -1;
	}
	c->no_zeroes = cflags & NBD_FLAG_C_NO_ZEROES;

	for (unsigned nopt = 0;; nopt++) {
		uint8_t h[16];
		uint32_t opt, len;
		int r;

		if (nopt >= c->cfg->max_options) {
			c->close_reason = "too many options";
			atomic_fetch_add(&in->proto_errors, 1);
			return -1;
		}
		if (rd(c, h, 16)) {
			c->close_reason = "closed during handshake";
			return -1;
		}
		if (get_be64(h) != NBD_IHAVEOPT) {
			c->close_reason = "bad option magic";
			atomic_fetch_add(&in->proto_errors, 1);
			return -1;
		}
		opt = get_be32(h + 8);
		len = get_be32(h + 12);
		if (len > OPT_MAX_LEN) {
			atomic_fetch_add(&in->proto_errors, 1);
			if (opt == NBD_OPT_EXPORT_NAME || len > OPT_SKIP_MAX) {
				c->close_reason = "oversized option";
				return -1;
			}
			if (skip(c, len) ||
			    opt_error(c, opt, NBD_REP_ERR_TOO_BIG, "option too long"))
				return -1;
			continue;
		}
		if (rd(c, c->dbuf, len)) {
			c->close_reason = "truncated option";
			return -1;
		}
		switch (opt) {
		case NBD_OPT_EXPORT_NAME:
			if (!name_ok(c, c->dbuf, len)) {
				c->close_reason = "unknown export name";
				return -1;
			}
			memset(c->dbuf, 0, 10 + 124);
			put_be64(c->dbuf, c->cfg->be->size);
			put_be16(c->dbuf + 8, tflags(c));
			if (send_buf(c, c->dbuf, c->no_zeroes ? 10 : 10 + 124))
				return -1;
			return 0;
		case NBD_OPT_ABORT:
			(void)opt_reply(c, opt, NBD_REP_ACK, NULL, 0);
			c->close_reason = "client aborted handshake";
			return -1;
		case NBD_OPT_LIST: {
			const char *e = c->cfg->export_name ? c->cfg->export_name : "";
			uint32_t n = (uint32_t)strlen(e);

			if (len) {
				r = opt_error(c, opt, NBD_REP_ERR_INVALID, "LIST takes no data");
				break;
			}
			put_be32(c->dbuf, n);
			memcpy(c->dbuf + 4, e, n);
			r = opt_reply(c, opt, NBD_REP_SERVER, c->dbuf, n + 4);
			if (!r)
				r = opt_reply(c, opt, NBD_REP_ACK, NULL, 0);
			break;
		}
		case NBD_OPT_INFO:
		case NBD_OPT_GO:
			r = opt_info_go(c, opt, c->dbuf, len);
			if (r == 1)
				return 0;
			break;
		default:
			/* STARTTLS, STRUCTURED_REPLY, meta contexts, extended
			 * headers and anything newer: not supported */
			r = opt_error(c, opt, NBD_REP_ERR_UNSUP, "option not supported");
			break;
		}
		if (r < 0)
			return -1;
	}
}

/* ---- transmission ---- */

static void account(struct conn *c, const struct pending *p)
{
	struct inject *in = c->cfg->in;

	inject_account(in, (enum opc)p->opc, p->opc == OPC_FLUSH ? 0 : p->len,
		       p->err, p->injected, p->delay_ns, ts_now_ns() - p->arrival);
}

static void simple_header(uint8_t *h, uint32_t err, uint64_t cookie)
{
	put_be32(h, NBD_SIMPLE_REPLY_MAGIC);
	put_be32(h + 4, err);
	put_be64(h + 8, cookie);
}

/* Send the reply for p.  A read without an error carries its data,
 * fetched now (so a delayed read returns the data as of its reply).
 * buf is the caller's chunk buffer (reader: dbuf, sender: sbuf). */
static int send_reply(struct conn *c, struct pending *p, uint8_t *buf)
{
	const struct backend *be = c->cfg->be;
	uint8_t h[NBD_SIMPLE_REPLY_SIZE];
	struct iovec iov[2];
	int r = 0;

	pthread_mutex_lock(&c->send_lock);
	iov[0].iov_base = h;
	iov[0].iov_len = sizeof h;
	if (p->opc != OPC_READ || p->err) {
		simple_header(h, p->err, p->cookie);
		r = sendv_all(c, iov, 1);
	} else if (be->ram) {
		simple_header(h, 0, p->cookie);
		iov[1].iov_base = be->ram + p->off;
		iov[1].iov_len = p->len;
		r = sendv_all(c, iov, 2);
	} else {
		uint64_t off = p->off, left = p->len;
		size_t k = left < c->dcap ? (size_t)left : c->dcap;
		int e = backend_pread((struct backend *)be, buf, k, off);

		if (e) {
			p->err = nbd_errno_from_host(-e);
			simple_header(h, p->err, p->cookie);
			r = sendv_all(c, iov, 1);
		} else {
			simple_header(h, 0, p->cookie);
			iov[1].iov_base = buf;
			iov[1].iov_len = k;
			r = sendv_all(c, iov, 2);
			off += k;
			left -= k;
			while (!r && left) {
				k = left < c->dcap ? (size_t)left : c->dcap;
				e = backend_pread((struct backend *)be, buf, k, off);
				if (e) {
					/* the header is gone: only a hang-up
					 * can tell the client */
					mark_dead(c, "read error after reply header");
					r = -1;
					break;
				}
				r = send_buf(c, buf, k);
				off += k;
				left -= k;
			}
		}
	}
	pthread_mutex_unlock(&c->send_lock);
	if (!r)
		account(c, p);
	return r;
}

static bool heap_less(const struct pending *a, const struct pending *b)
{
	return a->deadline < b->deadline;
}

static void heap_push(struct conn *c, const struct pending *p)
{
	unsigned i = c->nheap++;

	c->heap[i] = *p;
	while (i) {
		unsigned parent = (i - 1) / 2;
		struct pending t;

		if (!heap_less(&c->heap[i], &c->heap[parent]))
			break;
		t = c->heap[i];
		c->heap[i] = c->heap[parent];
		c->heap[parent] = t;
		i = parent;
	}
}

static void heap_pop(struct conn *c, struct pending *out)
{
	unsigned i = 0;

	*out = c->heap[0];
	c->heap[0] = c->heap[--c->nheap];
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;
		struct pending t;

		if (l < c->nheap && heap_less(&c->heap[l], &c->heap[m]))
			m = l;
		if (r < c->nheap && heap_less(&c->heap[r], &c->heap[m]))
			m = r;
		if (m == i)
			break;
		t = c->heap[i];
		c->heap[i] = c->heap[m];
		c->heap[m] = t;
		i = m;
	}
}

static int complete(struct conn *c, struct pending *p)
{
	if (p->deadline && c->async) {
		pthread_mutex_lock(&c->qlock);
		while (c->nheap == c->heapcap && !c->q_stop)
			pthread_cond_wait(&c->qspace, &c->qlock);
		if (c->q_stop) {
			pthread_mutex_unlock(&c->qlock);
			return -1;
		}
		heap_push(c, p);
		if (c->heap[0].deadline == p->deadline)
			pthread_cond_signal(&c->qcond);
		pthread_mutex_unlock(&c->qlock);
		return 0;
	}
	return send_reply(c, p, c->dbuf);
}

void *conn_sender(void *arg)
{
	struct conn *c = arg;
	struct pending p;

	/* microsecond delays need a small timer slack (default 50 us) */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	pthread_mutex_lock(&c->qlock);
	for (;;) {
		uint64_t now;

		if (c->q_stop)
			break;
		if (!c->nheap) {
			if (c->q_drain)
				break;
			pthread_cond_wait(&c->qcond, &c->qlock);
			continue;
		}
		now = ts_now_ns();
		if (c->heap[0].deadline > now) {
			struct timespec ts = {
				.tv_sec = (time_t)(c->heap[0].deadline / 1000000000u),
				.tv_nsec = (long)(c->heap[0].deadline % 1000000000u),
			};

			pthread_cond_timedwait(&c->qcond, &c->qlock, &ts);
			continue;
		}
		heap_pop(c, &p);
		pthread_cond_signal(&c->qspace);
		pthread_mutex_unlock(&c->qlock);
		if (!atomic_load(&c->dead))
			(void)send_reply(c, &p, c->sbuf);
		pthread_mutex_lock(&c->qlock);
	}
	pthread_mutex_unlock(&c->qlock);
	return NULL;
}

void conn_stop_sender(struct conn *c, bool drain)
{
	pthread_mutex_lock(&c->qlock);
	if (drain)
		c->q_drain = true;
	else
		c->q_stop = true;
	pthread_cond_broadcast(&c->qcond);
	pthread_cond_broadcast(&c->qspace);
	pthread_mutex_unlock(&c->qlock);
}

static const char *cmd_name(uint16_t t)
{
	switch (t) {
	case NBD_CMD_READ: return "READ";
	case NBD_CMD_WRITE: return "WRITE";
	case NBD_CMD_DISC: return "DISC";
	case NBD_CMD_FLUSH: return "FLUSH";
	case NBD_CMD_TRIM: return "TRIM";
	case NBD_CMD_CACHE: return "CACHE";
	case NBD_CMD_WRITE_ZEROES: return "WRITE_ZEROES";
	case NBD_CMD_BLOCK_STATUS: return "BLOCK_STATUS";
	default: return "UNKNOWN";
	}
}

/* Receive a WRITE payload into the export.  Returns the NBD error of
 * the write (0 = stored), or -1 when the link failed. */
static int64_t recv_write(struct conn *c, const struct pending *p, bool fua)
{
	struct backend *be = c->cfg->be;
	uint64_t off = p->off, left = p->len;
	uint32_t err = 0;

	if (be->ram)
		return rd(c, be->ram + off, left) ? -1 : 0;
	while (left) {
		size_t k = left < c->dcap ? (size_t)left : c->dcap;

		if (rd(c, c->dbuf, k))
			return -1;
		if (!err) {
			int e = backend_pwrite(be, c->dbuf, k, off, fua);

			if (e)
				err = nbd_errno_from_host(-e);
		}
		off += k;
		left -= k;
	}
	return err;
}

/* One request.  0: go on; 1: client disconnected cleanly; -1: hang up. */
static int request(struct conn *c, const uint8_t *hdr)
{
	const struct conn_cfg *cfg = c->cfg;
	struct backend *be = cfg->be;
	struct inject *in = cfg->in;
	uint16_t flags = get_be16(hdr + 4), type = get_be16(hdr + 6);
	uint16_t allowed = NBD_CMD_FLAG_FUA;
	struct pending p = {
		.cookie = get_be64(hdr + 8),
		.off = get_be64(hdr + 16),
		.len = get_be32(hdr + 24),
		.arrival = ts_now_ns(),
	};
	struct verdict v;
	uint32_t err = 0;
	bool has_payload = false, fua = flags & NBD_CMD_FLAG_FUA;

	c->nreq++;
	switch (type) {
	case NBD_CMD_DISC:
		c->disc = true;
		c->close_reason = "client disconnected";
		return 1;
	case NBD_CMD_READ:
		p.opc = OPC_READ;
		break;
	case NBD_CMD_WRITE:
		p.opc = OPC_WRITE;
		has_payload = true;
		break;
	case NBD_CMD_FLUSH:
		p.opc = OPC_FLUSH;
		break;
	case NBD_CMD_TRIM:
		p.opc = OPC_TRIM;
		break;
	case NBD_CMD_WRITE_ZEROES:
		p.opc = OPC_TRIM;
		allowed |= NBD_CMD_FLAG_NO_HOLE;
		break;
	default:
		/* CACHE, BLOCK_STATUS (no meta context) and unknown commands */
		atomic_fetch_add(&in->proto_errors, 1);
		p.opc = OPC_READ;
		p.err = NBD_EINVAL;
		p.len = 0;
		if (atomic_load(&in->verbose))
			log_line("conn %u req %llu %s(%u) rejected", c->id,
				 (unsigned long long)c->nreq, cmd_name(type), type);
		return send_reply(c, &p, c->dbuf) ? -1 : 0;
	}

	if (has_payload && p.len > cfg->max_request) {
		/* we will not swallow an arbitrary payload */
		atomic_fetch_add(&in->proto_errors, 1);
		c->close_reason = "oversized write";
		return -1;
	}
	if (flags & ~allowed)
		err = NBD_EINVAL;
	else if (p.opc == OPC_READ && (p.len == 0 || p.len > cfg->max_request))
		err = NBD_EINVAL;
	else if (p.opc == OPC_WRITE && p.len == 0)
		err = NBD_EINVAL;
	else if (p.opc != OPC_FLUSH &&
		 (p.off > be->size || p.len > be->size - p.off))
		err = type == NBD_CMD_WRITE || type == NBD_CMD_WRITE_ZEROES ?
			      NBD_ENOSPC : NBD_EINVAL;
	else if (be->read_only && p.opc != OPC_READ && p.opc != OPC_FLUSH)
		err = NBD_EPERM;
	if (err) {
		atomic_fetch_add(&in->proto_errors, 1);
		if (atomic_load(&in->verbose))
			log_line("conn %u req %llu %s off=%llu len=%u flags=%#x: %s",
				 c->id, (unsigned long long)c->nreq, cmd_name(type),
				 (unsigned long long)p.off, p.len, flags,
				 nbd_errno_name(err));
		if (has_payload && skip(c, p.len))
			return -1;
		p.err = err;
		return send_reply(c, &p, c->dbuf) ? -1 : 0;
	}

	inject_decide(in, (enum opc)p.opc, p.off, p.len, p.arrival, &v);
	if (v.disconnect) {
		atomic_fetch_add(&in->disc_injected, 1);
		log_line("conn %u injected disconnect at request %llu (%s off=%llu len=%u)",
			 c->id, (unsigned long long)c->nreq, cmd_name(type),
			 (unsigned long long)p.off, p.len);
		c->close_reason = "injected disconnect";
		return -1;
	}
	p.err = v.err;
	p.injected = v.err != 0;
	p.deadline = v.deadline_ns;
	p.delay_ns = v.delay_ns;
	if (atomic_load(&in->verbose))
		log_line("conn %u req %llu %s off=%llu len=%u flags=%#x err=%s delay_us=%llu",
			 c->id, (unsigned long long)c->nreq, cmd_name(type),
			 (unsigned long long)p.off, p.len, flags,
			 p.err ? nbd_errno_name(p.err) : "0",
			 (unsigned long long)(p.delay_ns / 1000));

	if (!p.err) {
		int e = 0;

		switch (type) {
		case NBD_CMD_WRITE: {
			int64_t r = recv_write(c, &p, fua);

			if (r < 0) {
				c->close_reason = "closed in the middle of a write";
				return -1;
			}
			p.err = (uint32_t)r;
			break;
		}
		case NBD_CMD_FLUSH:
			e = backend_flush(be);
			break;
		case NBD_CMD_TRIM:
			e = backend_trim(be, p.off, p.len);
			if (!e && fua)
				e = backend_flush(be);
			break;
		case NBD_CMD_WRITE_ZEROES:
			e = backend_zero(be, p.off, p.len,
					 !(flags & NBD_CMD_FLAG_NO_HOLE), fua,
					 c->dbuf, c->dcap);
			break;
		default:
			break;
		}
		if (e)
			p.err = nbd_errno_from_host(-e);
	} else if (has_payload && skip(c, p.len)) {
		c->close_reason = "closed in the middle of a write";
		return -1;
	}
	return complete(c, &p) ? -1 : 0;
}

static void transmission(struct conn *c)
{
	uint8_t hdr[NBD_REQUEST_SIZE];

	for (;;) {
		int r;

		if (atomic_load(&c->dead))
			return;
		if (c->rpos == c->rlen) {
			/* distinguish a clean end of stream between requests */
			ssize_t n = c->io.recv(c->io.ctx, c->rbuf, c->rcap, false);

			if (n <= 0) {
				if (!atomic_load(&c->dead))
					c->close_reason = n == 0 ? "client closed" : "receive error";
				return;
			}
			c->rpos = 0;
			c->rlen = (size_t)n;
		}
		if (rd(c, hdr, sizeof hdr)) {
			if (!atomic_load(&c->dead))
				c->close_reason = "truncated request";
			return;
		}
		if (get_be32(hdr) != NBD_REQUEST_MAGIC) {
			atomic_fetch_add(&c->cfg->in->proto_errors, 1);
			c->close_reason = "bad request magic";
			return;
		}
		r = request(c, hdr);
		if (r)
			return;
	}
}

void conn_run(struct conn *c)
{
	if (handshake(c))
		return;
	if (c->io.phase)
		c->io.phase(c->io.ctx, true);
	transmission(c);
}
