/* tiernbd: a swap-safe NBD server with run-time latency and error
 * injection.  See docs/tiernbd.md. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "backend.h"
#include "conn.h"
#include "inject.h"
#include "proto.h"
#include "util.h"

#ifndef PR_SET_IO_FLUSHER
#define PR_SET_IO_FLUSHER 57
#endif

#define TIERNBD_VERSION "1.0"
#define STACK_SIZE (256u * 1024)
#define MAX_LISTEN 8
#define HANDSHAKE_TIMEOUT_S 10

enum slot_state { SLOT_FREE, SLOT_ACTIVE, SLOT_DONE };

struct server;

struct slot {
	struct server *srv;
	struct conn c;
	enum slot_state state;
	int fd;
	pthread_t reader, sender;
	void *stack; /* two stacks: reader, sender */
	uint64_t hs_deadline; /* handshake deadline (monotonic ns), 0 = none */
};

struct server {
	struct backend be;
	struct inject in;
	struct conn_cfg cfg;
	struct slot *slots;
	unsigned nslots;
	pthread_mutex_t lock; /* slots' state and fd */
	int wake_fd;          /* eventfd: a slot became DONE */
	int lfd[MAX_LISTEN];
	bool lunix[MAX_LISTEN];
	unsigned nlisten;
	int ctl_fd;
	unsigned next_id;
	struct ts_outbuf out;
	struct safety {
		bool mlocked, io_flusher, oom_protected;
	} safety;
};

struct options {
	uint64_t size;
	const char *file;
	bool direct, read_only, no_tcp, no_lock, verbose;
	const char *export_name;
	const char *bind;
	const char *port;
	const char *unix_path;
	const char *ctl_path;
	const char *pidfile;
	uint64_t max_conns, max_request, bufsize, queue_depth;
	char **knobs; /* control commands from start-up options */
	int nknobs;
};

static void usage(FILE *f)
{
	fputs(
"usage: tiernbd (--size SIZE | --file PATH [--size SIZE]) [options]\n"
"export:\n"
"  -s, --size SIZE            export size (K M G T suffix); RAM export unless --file\n"
"  -f, --file PATH            back the export by a file or block device\n"
"      --direct               O_DIRECT for 4K-aligned requests on --file\n"
"  -r, --read-only            refuse writes (EPERM)\n"
"  -n, --export-name NAME     export name (default tiernbd; \"\" always works)\n"
"listening:\n"
"  -b, --bind ADDR            TCP address (default 127.0.0.1)\n"
"  -p, --port PORT            TCP port (default 10809, 0 = any)\n"
"      --no-tcp               no TCP listener\n"
"  -u, --unix PATH            also listen on a Unix socket\n"
"  -c, --ctl PATH             control socket for tiernbd-ctl\n"
"      --pidfile PATH         write the pid once listening\n"
"limits:\n"
"      --max-conns N          concurrent connections (default 8)\n"
"      --max-request SIZE     largest read/write (default 32M)\n"
"      --buffer SIZE          per-connection chunk buffer (default 256K)\n"
"      --queue-depth N        delayed replies per connection (default 256)\n"
"      --no-lock              skip mlockall() and PR_SET_IO_FLUSHER (not swap-safe)\n"
"injection (same as the control commands):\n"
"      --latency OPS=DIST     DIST: off|US|fixed:US|uniform:MIN,MAX|normal:MEAN,SD|lognormal:MEAN,SD\n"
"      --bandwidth RATE       bytes/s (K M G suffix) or off\n"
"      --seed N               seed of the latency and error generators\n"
"      --error-add OPS=START[+LEN][,count=N][,errno=E]\n"
"      --error-rate OPS=PPM[,errno=E]\n"
"      --error-every OPS=N[,errno=E]\n"
"      --disconnect-after N   drop the connection that sends request N+1\n"
"  -v, --verbose              log every request\n"
"  -h, --help    -V, --version\n"
"OPS: read write flush trim (trim = TRIM and WRITE_ZEROES; zero is an alias) all, comma-separated\n",
	      f);
}

static void die_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "tiernbd: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

/* Turn "OPS=REST" into a control command "<prefix> OPS REST..." with
 * commas in REST split into words when split is true. */
static void add_knob(struct options *o, const char *prefix, const char *val, bool split)
{
	size_t n = strlen(prefix) + strlen(val) + 2;
	char *s = malloc(n);
	char *eq;

	if (!s)
		die_usage("%s", "out of memory");
	snprintf(s, n, "%s %s", prefix, val);
	eq = strchr(s + strlen(prefix) + 1, '=');
	if (eq) {
		*eq = ' ';
		if (split)
			for (char *p = eq; *p; p++)
				if (*p == ',')
					*p = ' ';
	}
	o->knobs = realloc(o->knobs, sizeof(char *) * (size_t)(o->nknobs + 1));
	if (!o->knobs)
		die_usage("%s", "out of memory");
	o->knobs[o->nknobs++] = s;
}

static void parse_args(int argc, char **argv, struct options *o)
{
	enum { O_DIRECT_ = 256, O_NOTCP, O_PIDFILE, O_MAXCONNS, O_MAXREQ, O_BUF,
	       O_QD, O_NOLOCK, O_LAT, O_BW, O_SEED, O_EADD, O_ERATE, O_EEVERY,
	       O_DISC };
	static const struct option lo[] = {
		{ "size", required_argument, NULL, 's' },
		{ "file", required_argument, NULL, 'f' },
		{ "direct", no_argument, NULL, O_DIRECT_ },
		{ "read-only", no_argument, NULL, 'r' },
		{ "export-name", required_argument, NULL, 'n' },
		{ "bind", required_argument, NULL, 'b' },
		{ "port", required_argument, NULL, 'p' },
		{ "no-tcp", no_argument, NULL, O_NOTCP },
		{ "unix", required_argument, NULL, 'u' },
		{ "ctl", required_argument, NULL, 'c' },
		{ "pidfile", required_argument, NULL, O_PIDFILE },
		{ "max-conns", required_argument, NULL, O_MAXCONNS },
		{ "max-request", required_argument, NULL, O_MAXREQ },
		{ "buffer", required_argument, NULL, O_BUF },
		{ "queue-depth", required_argument, NULL, O_QD },
		{ "no-lock", no_argument, NULL, O_NOLOCK },
		{ "latency", required_argument, NULL, O_LAT },
		{ "bandwidth", required_argument, NULL, O_BW },
		{ "seed", required_argument, NULL, O_SEED },
		{ "error-add", required_argument, NULL, O_EADD },
		{ "error-rate", required_argument, NULL, O_ERATE },
		{ "error-every", required_argument, NULL, O_EEVERY },
		{ "disconnect-after", required_argument, NULL, O_DISC },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	int ch;

	memset(o, 0, sizeof *o);
	o->export_name = "tiernbd";
	o->bind = "127.0.0.1";
	o->port = "10809";
	o->max_conns = 8;
	o->max_request = 32u << 20;
	o->bufsize = 256u << 10;
	o->queue_depth = 256;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":s:f:rn:b:p:u:c:vhV", lo, NULL)) != -1) {
		switch (ch) {
		case 's':
			if (ts_parse_size(optarg, NBD_SIZE_FLAGS, &o->size) || !o->size)
				die_usage("bad size '%s'", optarg);
			break;
		case 'f': o->file = optarg; break;
		case O_DIRECT_: o->direct = true; break;
		case 'r': o->read_only = true; break;
		case 'n':
			if (strlen(optarg) > 256)
				die_usage("%s", "export name too long (256 bytes at most)");
			o->export_name = optarg;
			break;
		case 'b': o->bind = optarg; break;
		case 'p': o->port = optarg; break;
		case O_NOTCP: o->no_tcp = true; break;
		case 'u': o->unix_path = optarg; break;
		case 'c': o->ctl_path = optarg; break;
		case O_PIDFILE: o->pidfile = optarg; break;
		case O_MAXCONNS:
			if (ts_parse_uint(optarg, 0, UINT64_MAX, &o->max_conns) || !o->max_conns || o->max_conns > 1024)
				die_usage("bad --max-conns '%s' (1..1024)", optarg);
			break;
		case O_MAXREQ:
			if (ts_parse_size(optarg, NBD_SIZE_FLAGS, &o->max_request) || o->max_request < 4096 ||
			    o->max_request > (1u << 30))
				die_usage("bad --max-request '%s' (4K..1G)", optarg);
			break;
		case O_BUF:
			if (ts_parse_size(optarg, NBD_SIZE_FLAGS, &o->bufsize) || o->bufsize < 4096 ||
			    o->bufsize > (256u << 20))
				die_usage("bad --buffer '%s' (4K..256M)", optarg);
			break;
		case O_QD:
			if (ts_parse_uint(optarg, 0, UINT64_MAX, &o->queue_depth) || !o->queue_depth ||
			    o->queue_depth > 65536)
				die_usage("bad --queue-depth '%s' (1..65536)", optarg);
			break;
		case O_NOLOCK: o->no_lock = true; break;
		case O_LAT: add_knob(o, "latency", optarg, false); break;
		case O_BW: add_knob(o, "bandwidth", optarg, false); break;
		case O_SEED: add_knob(o, "seed", optarg, false); break;
		case O_EADD: add_knob(o, "error add", optarg, true); break;
		case O_ERATE: add_knob(o, "error rate", optarg, true); break;
		case O_EEVERY: add_knob(o, "error every", optarg, true); break;
		case O_DISC: add_knob(o, "disconnect after", optarg, false); break;
		case 'v': o->verbose = true; break;
		case 'h': usage(stdout); exit(0);
		case 'V': puts("tiernbd " TIERNBD_VERSION); exit(0);
		case ':': die_usage("option '%s' needs an argument", argv[optind - 1]); break;
		default: die_usage("unknown option '%s' (see --help)", argv[optind - 1]); break;
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (!o->file && !o->size)
		die_usage("%s", "give --size for a RAM export or --file");
	if (o->direct && !o->file)
		die_usage("%s", "--direct needs --file");
	if (o->no_tcp && !o->unix_path)
		die_usage("%s", "--no-tcp needs --unix");
}

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

static void set_rcvtimeo(int fd, int secs)
{
	struct timeval tv = { .tv_sec = secs };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
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

static void reap(struct server *srv)
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

static void accept_conn(struct server *srv, int lfd, bool is_unix)
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

static int listen_tcp(struct server *srv, const char *host, const char *port)
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

static int listen_unix(const char *path, int backlog)
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

/* ---- control socket ---- */

static const char ctl_help[] =
	"ping | help | status | show | stats [reset] | conns\n"
	"latency OPS off|US|fixed:US|uniform:MIN,MAX|normal:MEAN,SD|lognormal:MEAN,SD\n"
	"bandwidth BYTES_PER_SEC|off | seed N | verbose on|off\n"
	"error add OPS START[+LEN] [count=N|inf] [errno=E] | error del ID|all | error list\n"
	"error rate OPS PPM [errno=E] | error every OPS N [errno=E] | error clear\n"
	"disconnect after N|off | disconnect now [ID|all]\n";

static int server_command(struct server *srv, int argc, char **argv, struct ts_outbuf *out)
{
	int r;

	if (argc == 0) {
		ts_outbuf_printf(out, "error: empty command\n");
		return -1;
	}
	if (!strcmp(argv[0], "ping") && argc == 1) {
		ts_outbuf_printf(out, "pong\n");
		return 0;
	}
	if (!strcmp(argv[0], "status") && argc == 1) {
		unsigned active = 0;

		pthread_mutex_lock(&srv->lock);
		for (unsigned i = 0; i < srv->nslots; i++)
			active += srv->slots[i].state == SLOT_ACTIVE;
		pthread_mutex_unlock(&srv->lock);
		ts_outbuf_printf(out, "export=%s size=%llu backing=%s read_only=%s conns_active=%u max_conns=%u max_request=%u\n",
			      srv->cfg.export_name, (unsigned long long)srv->be.size,
			      srv->be.ram ? "ram" : "file", srv->be.read_only ? "yes" : "no",
			      active, srv->nslots, srv->cfg.max_request);
		ts_outbuf_printf(out, "mlocked=%s io_flusher=%s oom_protected=%s swap_safe=%s\n",
			      srv->safety.mlocked ? "yes" : "no",
			      srv->safety.io_flusher ? "yes" : "no",
			      srv->safety.oom_protected ? "yes" : "no",
			      srv->safety.mlocked && srv->safety.io_flusher ? "yes" : "no");
		return 0;
	}
	if (!strcmp(argv[0], "help")) {
		ts_outbuf_printf(out, "%s", ctl_help);
		return 0;
	}
	if (!strcmp(argv[0], "conns") && argc == 1) {
		pthread_mutex_lock(&srv->lock);
		for (unsigned i = 0; i < srv->nslots; i++) {
			struct slot *s = &srv->slots[i];

			if (s->state == SLOT_ACTIVE)
				ts_outbuf_printf(out, "id=%u peer=%s\n", s->c.id, s->c.peer);
		}
		pthread_mutex_unlock(&srv->lock);
		return 0;
	}
	if (!strcmp(argv[0], "disconnect") && argc >= 2 && !strcmp(argv[1], "now")) {
		uint64_t id = 0;
		bool all = argc == 2 || !strcmp(argv[2], "all");
		unsigned n = 0;

		if (argc > 3 || (!all && ts_parse_uint(argv[2], 0, UINT64_MAX, &id))) {
			ts_outbuf_printf(out, "error: usage: disconnect now [ID|all]\n");
			return -1;
		}
		pthread_mutex_lock(&srv->lock);
		for (unsigned i = 0; i < srv->nslots; i++) {
			struct slot *s = &srv->slots[i];

			if (s->state == SLOT_ACTIVE && s->fd >= 0 && (all || s->c.id == id)) {
				atomic_store(&s->c.dead, true);
				s->c.close_reason = "injected disconnect (control)";
				shutdown(s->fd, SHUT_RDWR);
				atomic_fetch_add(&srv->in.disc_injected, 1);
				log_line("conn %u injected disconnect on command", s->c.id);
				n++;
			}
		}
		pthread_mutex_unlock(&srv->lock);
		if (!all && !n) {
			ts_outbuf_printf(out, "error: no connection with id %s\n", argv[2]);
			return -1;
		}
		ts_outbuf_printf(out, "disconnected=%u\n", n);
		return 0;
	}
	r = inject_command(&srv->in, argc, argv, out);
	if (r == 1) {
		ts_outbuf_printf(out, "error: unknown command '%s' (try help)\n", argv[0]);
		return -1;
	}
	return r;
}

static void handle_ctl(struct server *srv)
{
	char line[4096];
	char *words[32];
	size_t len = 0;
	int fd, argc, r;

	fd = accept4(srv->ctl_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	set_rcvtimeo(fd, 2);
	while (len < sizeof line - 1) {
		ssize_t n = recv(fd, line + len, sizeof line - 1 - len, 0);

		if (n <= 0)
			break;
		len += (size_t)n;
		if (memchr(line, '\n', len))
			break;
	}
	line[len] = '\0';
	line[strcspn(line, "\n")] = '\0';
	ts_outbuf_reset(&srv->out);
	argc = split_words(line, words, 32);
	if (argc < 0) {
		ts_outbuf_printf(&srv->out, "error: too many words\n");
		r = -1;
	} else {
		if (argc > 0 && strcmp(words[0], "stats") && strcmp(words[0], "ping") &&
		    strcmp(words[0], "show") && strcmp(words[0], "conns") &&
		    strcmp(words[0], "status")) {
			char shown[256];
			size_t o = 0;

			for (int i = 0; i < argc && o < sizeof shown - 1; i++)
				o += (size_t)snprintf(shown + o, sizeof shown - o, "%s%s",
						      i ? " " : "", words[i]);
			log_line("ctl: %s", shown);
		}
		r = server_command(srv, argc, words, &srv->out);
	}
	if (srv->out.truncated) {
		srv->out.truncated = false;
		srv->out.len = srv->out.cap - 64;
		ts_outbuf_printf(&srv->out, "\n# output truncated\n");
	}
	if (r == 0)
		ts_outbuf_printf(&srv->out, "ok\n");
	for (size_t off = 0; off < srv->out.len;) {
		ssize_t n = send(fd, srv->out.p + off, srv->out.len - off, MSG_NOSIGNAL);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
}

/* ---- start-up ---- */

static void swap_safety(bool no_lock, struct safety *st)
{
	int fd;

	if (no_lock) {
		log_line("--no-lock: memory not locked, not an I/O flusher: NOT swap-safe");
		return;
	}
	/* Everything we will ever touch is resident and stays so: the RAM
	 * export, every connection's buffers and thread stacks. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		fprintf(stderr, "tiernbd: mlockall: %s (use --no-lock to run anyway)\n",
			strerror(errno));
		exit(1);
	}
	st->mlocked = true;
	/* Our own allocations must not recurse into I/O on the device we
	 * serve: the kernel then treats us as part of the block layer
	 * (GFP_NOIO) and does not throttle us on dirty pages.  Needs
	 * CAP_SYS_RESOURCE; without it we go on, and say so. */
	if (prctl(PR_SET_IO_FLUSHER, 1, 0, 0, 0) == 0)
		st->io_flusher = true;
	else
		log_line("WARNING: PR_SET_IO_FLUSHER: %s: not swap-safe under memory pressure",
			 strerror(errno));
	/* best effort: the OOM killer should pick someone else */
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		st->oom_protected = write(fd, "-1000", 5) == 5;
		close(fd);
	}
}

static int setup_slots(struct server *srv, const struct options *o)
{
	srv->nslots = (unsigned)o->max_conns;
	srv->slots = calloc(srv->nslots, sizeof srv->slots[0]);
	if (!srv->slots)
		return -1;
	for (unsigned i = 0; i < srv->nslots; i++) {
		struct slot *s = &srv->slots[i];

		s->srv = srv;
		s->fd = -1;
		s->stack = mmap(NULL, 2 * STACK_SIZE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_STACK, -1, 0);
		if (s->stack == MAP_FAILED)
			return -1;
		if (conn_alloc(&s->c, &srv->cfg, (size_t)o->bufsize, (unsigned)o->queue_depth))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct server srv;
	struct options o;
	char err[256];
	struct pollfd pfd[MAX_LISTEN + 3];
	sigset_t sigs;
	int sfd, r;
	bool stop = false;

	parse_args(argc, argv, &o);
	if (inject_init(&srv.in, 0) || ts_outbuf_init(&srv.out, 256 * 1024)) {
		fprintf(stderr, "tiernbd: out of memory\n");
		return 1;
	}
	for (int i = 0; i < o.nknobs; i++) {
		char *w[32];
		int n = split_words(o.knobs[i], w, 32);

		ts_outbuf_reset(&srv.out);
		if (n < 0 || inject_command(&srv.in, n, w, &srv.out)) {
			char *nl = strchr(srv.out.p, '\n');

			if (nl)
				*nl = '\0';
			die_usage("%s", srv.out.len ? srv.out.p : "bad injection option");
		}
		free(o.knobs[i]);
	}
	free(o.knobs);
	if (o.verbose)
		atomic_store(&srv.in.verbose, true);

	if (o.file)
		r = backend_open_file(&srv.be, o.file, o.size, o.direct, o.read_only,
				      err, sizeof err);
	else
		r = backend_open_ram(&srv.be, o.size, err, sizeof err);
	if (r) {
		fprintf(stderr, "tiernbd: %s\n", err);
		return 1;
	}
	srv.be.read_only = o.read_only;
	srv.cfg = (struct conn_cfg){
		.be = &srv.be,
		.in = &srv.in,
		.export_name = o.export_name,
		.description = o.file ? "tiernbd file export" : "tiernbd RAM export",
		.max_request = (uint32_t)o.max_request,
		.max_options = 128,
	};
	if (pthread_mutex_init(&srv.lock, NULL) || setup_slots(&srv, &o)) {
		fprintf(stderr, "tiernbd: cannot allocate connection slots\n");
		return 1;
	}
	srv.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	srv.ctl_fd = -1;
	srv.next_id = 1;

	/* signals are read from a signalfd by the main loop only */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);

	swap_safety(o.no_lock, &srv.safety);

	if (!o.no_tcp && listen_tcp(&srv, o.bind, o.port))
		return 1;
	if (o.unix_path) {
		int fd = listen_unix(o.unix_path, 64);

		if (fd < 0)
			return 1;
		srv.lunix[srv.nlisten] = true;
		srv.lfd[srv.nlisten++] = fd;
		log_line("listening on unix %s", o.unix_path);
	}
	if (o.ctl_path) {
		srv.ctl_fd = listen_unix(o.ctl_path, 8);
		if (srv.ctl_fd < 0)
			return 1;
		chmod(o.ctl_path, 0600);
		log_line("control socket %s", o.ctl_path);
	}
	log_line("export '%s' size %llu %s%s, max %u connections",
		 o.export_name, (unsigned long long)srv.be.size,
		 o.file ? o.file : "RAM", o.read_only ? " read-only" : "", srv.nslots);
	if (o.pidfile) {
		FILE *f = fopen(o.pidfile, "w");

		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
			fprintf(stderr, "tiernbd: %s: %s\n", o.pidfile, strerror(errno));
			return 1;
		}
	}

	while (!stop) {
		unsigned n = 0;

		for (unsigned i = 0; i < srv.nlisten; i++)
			pfd[n++] = (struct pollfd){ .fd = srv.lfd[i], .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = srv.ctl_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = srv.wake_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (unsigned i = 0; i < srv.nlisten; i++)
			if (pfd[i].revents & POLLIN)
				accept_conn(&srv, srv.lfd[i], srv.lunix[i]);
		if (pfd[srv.nlisten].revents & POLLIN)
			handle_ctl(&srv);
		if (pfd[srv.nlisten + 1].revents & POLLIN)
			reap(&srv);
		if (pfd[srv.nlisten + 2].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof si) == sizeof si)
				log_line("signal %u, shutting down", si.ssi_signo);
			stop = true;
		}
	}

	for (unsigned i = 0; i < srv.nlisten; i++)
		close(srv.lfd[i]);
	pthread_mutex_lock(&srv.lock);
	for (unsigned i = 0; i < srv.nslots; i++)
		if (srv.slots[i].state == SLOT_ACTIVE && srv.slots[i].fd >= 0)
			shutdown(srv.slots[i].fd, SHUT_RDWR);
	pthread_mutex_unlock(&srv.lock);
	for (unsigned i = 0; i < srv.nslots; i++) {
		if (srv.slots[i].state != SLOT_FREE)
			pthread_join(srv.slots[i].reader, NULL);
		conn_free(&srv.slots[i].c);
		munmap(srv.slots[i].stack, 2 * STACK_SIZE);
	}
	free(srv.slots);
	if (o.unix_path)
		unlink(o.unix_path);
	if (o.ctl_path) {
		close(srv.ctl_fd);
		unlink(o.ctl_path);
	}
	if (o.pidfile)
		unlink(o.pidfile);
	backend_close(&srv.be);
	ts_outbuf_free(&srv.out);
	inject_destroy(&srv.in);
	log_line("exit");
	return 0;
}
