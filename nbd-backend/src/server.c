/* tiernbd: a swap-safe NBD server with run-time latency and error
 * injection.  See docs/tiernbd.md.  This file: start-up (swap safety,
 * connection slots, listeners), the main loop and shutdown. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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
#include <unistd.h>

#include "server.h"

#ifndef PR_SET_IO_FLUSHER
#define PR_SET_IO_FLUSHER 57
#endif

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

	server_parse_args(argc, argv, &o);
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
			server_die_usage("%s", srv.out.len ? srv.out.p : "bad injection option");
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

	if (!o.no_tcp && server_listen_tcp(&srv, o.bind, o.port))
		return 1;
	if (o.unix_path) {
		int fd = server_listen_unix(o.unix_path, 64);

		if (fd < 0)
			return 1;
		srv.lunix[srv.nlisten] = true;
		srv.lfd[srv.nlisten++] = fd;
		log_line("listening on unix %s", o.unix_path);
	}
	if (o.ctl_path) {
		srv.ctl_fd = server_listen_unix(o.ctl_path, 8);
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
				server_accept(&srv, srv.lfd[i], srv.lunix[i]);
		if (pfd[srv.nlisten].revents & POLLIN)
			server_handle_ctl(&srv);
		if (pfd[srv.nlisten + 1].revents & POLLIN)
			server_reap(&srv);
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
