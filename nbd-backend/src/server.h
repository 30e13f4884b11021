/* tiernbd's server: the state its parts share (server.c: start-up and
 * the main loop; server_opts.c: the command line; server_conns.c:
 * listeners and connection threads; server_ctl.c: the control socket). */
#ifndef TIERNBD_SERVER_H
#define TIERNBD_SERVER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "conn.h"
#include "inject.h"
#include "util.h"

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

/* server_opts.c */
void server_parse_args(int argc, char **argv, struct options *o);
_Noreturn void server_die_usage(const char *fmt, const char *arg);

/* server_conns.c */
int server_listen_tcp(struct server *srv, const char *host, const char *port);
int server_listen_unix(const char *path, int backlog);
void server_accept(struct server *srv, int lfd, bool is_unix);
void server_reap(struct server *srv);

/* server_ctl.c */
void server_handle_ctl(struct server *srv);

#endif
