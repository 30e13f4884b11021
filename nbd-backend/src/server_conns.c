/* tiernbd's listeners and connections: TCP and Unix listeners, one slot
 * (reader and sender thread on preallocated stacks) per connection. */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "server.h"

/* ---- sockets ---- */

static ssize_t sock_recv(void *ctx, void *buf, size_t len, bool all)
{
	struct slot *s = ctx;
	ssize_t n;

	/* The handshake deadline is kept with poll(), not SO_RCVTIMEO:
	 * setting a timeval socket option copies from user memory under the
	 * socket lock, which lockdep chains up with the kernel nbd client's
	 * own use of the socket lock and the block queue (a possible
	 * circular dependency report in the guest). */
	if (s->hs_deadline) {
		struct pollfd p = { .fd = s->fd, .events = POLLIN };
		uint64_t now = ts_now_ns();
		int r;

		if (now >= s->hs_deadline) {
			errno = ETIMEDOUT;
			return -1;
		}
		do
			r = poll(&p, 1, (int)((s->hs_deadline - now) / 1000000u) + 1);
		while (r < 0 && errno == EINTR);
		if (r == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		all = false;
	}
	do
		n = recv(s->fd, buf, len, all ? MSG_WAITALL : 0);
	while (n < 0 && errno == EINTR);
	return n;
}

static ssize_t sock_sendv(void *ctx, const struct iovec *iov, int cnt)
{
	struct slot *s = ctx;
	struct msghdr m = { .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)cnt };
	ssize_t n;

	do
		n = sendmsg(s->fd, &m, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n;
}

static void sock_phase(void *ctx, bool transmission)
{
	struct slot *s = ctx;

	/* the handshake has a deadline, the transmission phase none: a
	 * swap device may sit idle for hours */
	if (transmission)
		s->hs_deadline = 0;
}

static void sock_shutdown(void *ctx)
{
	struct slot *s = ctx;

	pthread_mutex_lock(&s->srv->lock);
	if (s->fd >= 0)
		shutdown(s->fd, SHUT_RDWR);
	pthread_mutex_unlock(&s->srv->lock);
}

static void *reader_main(void *arg)
{
	struct slot *s = arg;
	struct server *srv = s->srv;
	struct conn *c = &s->c;
	pthread_attr_t at;
	bool have_sender;
	uint64_t one = 1;
	int fd;

	pthread_attr_init(&at);
	pthread_attr_setstack(&at, (uint8_t *)s->stack + STACK_SIZE, STACK_SIZE);
	have_sender = pthread_create(&s->sender, &at, conn_sender, c) == 0;
	pthread_attr_destroy(&at);
	c->async = have_sender;

	conn_run(c);

	if (have_sender) {
		conn_stop_sender(c, c->disc && !atomic_load(&c->dead));
		pthread_join(s->sender, NULL);
	}
	pthread_mutex_lock(&srv->lock);
	fd = s->fd;
	s->fd = -1;
	s->state = SLOT_DONE;
	pthread_mutex_unlock(&srv->lock);
	close(fd);
	atomic_fetch_add(&srv->in.conns_closed, 1);
	log_line("conn %u close %s: %s, %llu requests", c->id, c->peer,
		 c->close_reason, (unsigned long long)c->nreq);
	if (write(srv->wake_fd, &one, sizeof one) < 0)
		log_line("eventfd: %s", strerror(errno));
	return NULL;
}

void server_reap(struct server *srv)
{
	uint64_t v;

	if (read(srv->wake_fd, &v, sizeof v) < 0 && errno != EAGAIN)
		log_line("eventfd: %s", strerror(errno));
	for (unsigned i = 0; i < srv->nslots; i++) {
		struct slot *s = &srv->slots[i];
		bool done;

		pthread_mutex_lock(&srv->lock);
		done = s->state == SLOT_DONE;
		pthread_mutex_unlock(&srv->lock);
		if (done) {
			pthread_join(s->reader, NULL);
			pthread_mutex_lock(&srv->lock);
			s->state = SLOT_FREE;
			pthread_mutex_unlock(&srv->lock);
		}
	}
}

static void peer_name(const struct sockaddr_storage *ss, socklen_t len, bool is_unix,
		      char *buf, size_t n)
{
	char host[48], serv[8];

	if (is_unix) {
		snprintf(buf, n, "unix");
		return;
	}
	if (getnameinfo((const struct sockaddr *)ss, len, host, sizeof host, serv,
			sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV))
		snprintf(buf, n, "?");
	else
		snprintf(buf, n, "%s:%s", host, serv);
}

void server_accept(struct server *srv, int lfd, bool is_unix)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	struct slot *s = NULL;
	char peer[80];
	pthread_attr_t at;
	int fd, one = 1;
	struct conn_io io = {
		.recv = sock_recv,
		.sendv = sock_sendv,
		.phase = sock_phase,
		.shutdown = sock_shutdown,
	};

	fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	peer_name(&ss, sl, is_unix, peer, sizeof peer);
	pthread_mutex_lock(&srv->lock);
	for (unsigned i = 0; i < srv->nslots; i++) {
		if (srv->slots[i].state == SLOT_FREE) {
			s = &srv->slots[i];
			s->state = SLOT_ACTIVE;
			s->fd = fd;
			break;
		}
	}
	pthread_mutex_unlock(&srv->lock);
	if (!s) {
		log_line("refused %s: all %u connection slots busy", peer, srv->nslots);
		close(fd);
		return;
	}
	if (!is_unix)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	s->hs_deadline = ts_now_ns() + HANDSHAKE_TIMEOUT_S * UINT64_C(1000000000);
	io.ctx = s;
	conn_reset(&s->c, &io, srv->next_id++, peer, false);
	atomic_fetch_add(&srv->in.conns_opened, 1);
	log_line("conn %u open %s", s->c.id, peer);
	pthread_attr_init(&at);
	pthread_attr_setstack(&at, s->stack, STACK_SIZE);
	if (pthread_create(&s->reader, &at, reader_main, s)) {
		log_line("conn %u: cannot create thread", s->c.id);
		pthread_mutex_lock(&srv->lock);
		s->state = SLOT_FREE;
		s->fd = -1;
		pthread_mutex_unlock(&srv->lock);
		close(fd);
	}
	pthread_attr_destroy(&at);
}

int server_listen_tcp(struct server *srv, const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res, *ai;
	int r, n = 0;

	r = getaddrinfo(host, port, &hints, &res);
	if (r) {
		fprintf(stderr, "tiernbd: %s:%s: %s\n", host, port, gai_strerror(r));
		return -1;
	}
	for (ai = res; ai && srv->nlisten < MAX_LISTEN; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0), one = 1;
		struct sockaddr_storage ss;
		socklen_t sl = sizeof ss;
		char h[64], p[16];

		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64)) {
			fprintf(stderr, "tiernbd: bind %s:%s: %s\n", host, port, strerror(errno));
			close(fd);
			continue;
		}
		getsockname(fd, (struct sockaddr *)&ss, &sl);
		if (!getnameinfo((struct sockaddr *)&ss, sl, h, sizeof h, p, sizeof p,
				 NI_NUMERICHOST | NI_NUMERICSERV))
			log_line("listening on tcp %s port %s", h, p);
		srv->lunix[srv->nlisten] = false;
		srv->lfd[srv->nlisten++] = fd;
		n++;
	}
	freeaddrinfo(res);
	return n ? 0 : -1;
}

int server_listen_unix(const char *path, int backlog)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof sa.sun_path) {
		fprintf(stderr, "tiernbd: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, backlog)) {
		fprintf(stderr, "tiernbd: %s: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}
