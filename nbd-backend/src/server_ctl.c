/* The control socket's server side (tiernbd-ctl, in ctl.c, is the
 * client): one command per connection, answered with its output and "ok"
 * or an "error: ..." line. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "server.h"

static void set_rcvtimeo(int fd, int secs)
{
	struct timeval tv = { .tv_sec = secs };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

/* ---- control socket ---- */

static const char ctl_help[] =
	"ping | help | status | show | stats [reset] | conns\n"
	"latency OPS off|D|fixed:D|uniform:MIN,MAX|normal:MEAN,SD|lognormal:MEAN,SD\n"
	"bandwidth BYTES_PER_SEC|off | seed N | verbose on|off\n"
	"error add OPS START[+LEN|-END] [count=N|inf] [errno=E] | error del ID|all | error list\n"
	"error rate OPS N%|Nppm [errno=E] | error every OPS N [errno=E] | error clear\n"
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

void server_handle_ctl(struct server *srv)
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
