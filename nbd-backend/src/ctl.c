/* tiernbd-ctl: send one command to a running tiernbd's control socket. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "util.h"

#define DEFAULT_CTL "/tmp/tiernbd.ctl"

static void usage(FILE *f)
{
	fputs("usage: tiernbd-ctl [-s SOCKET] [-t SECONDS] COMMAND [ARGS...]\n"
	      "  -s, --socket PATH   control socket (default $TIERNBD_CTL or " DEFAULT_CTL ")\n"
	      "  -t, --timeout SEC   give up after SEC seconds (default 5)\n"
	      "commands: ping help show stats [reset] conns latency bandwidth seed verbose\n"
	      "          error add|del|list|rate|every|clear  disconnect after|now\n"
	      "          (tiernbd-ctl help asks the server for the full syntax)\n"
	      "exit status: 0 ok, 1 command failed or server unreachable, 2 usage\n",
	      f);
}

static _Noreturn void die_usage(const char *msg, const char *arg)
{
	ts_usage_fail("tiernbd-ctl", msg, arg);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *path = getenv("TIERNBD_CTL");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	char cmd[4096], reply[256 * 1024];
	size_t len = 0, rlen = 0;
	uint64_t t;
	int ch, fd;
	char *last;

	if (!path || !*path)
		path = DEFAULT_CTL;
	opterr = 0;
	/* '+': stop at the first command word so "error add read 0+4K" works */
	while ((ch = getopt_long(argc, argv, "+:s:t:h", lo, NULL)) != -1) {
		switch (ch) {
		case 's': path = optarg; break;
		case 't':
			if (ts_parse_uint(optarg, 0, UINT64_MAX, &t) || t == 0 || t > 3600)
				die_usage("bad timeout '%s'", optarg);
			tv.tv_sec = (time_t)t;
			break;
		case 'h': usage(stdout); return 0;
		case ':': die_usage("option '%s' needs an argument", argv[optind - 1]); break;
		default: die_usage("unknown option '%s'", argv[optind - 1]); break;
		}
	}
	if (optind >= argc)
		die_usage("%s", "no command (try: tiernbd-ctl help)");
	for (int i = optind; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (strpbrk(argv[i], "\n\r"))
			die_usage("%s", "newline in argument");
		if (len + n + 2 > sizeof cmd)
			die_usage("%s", "command too long");
		if (len)
			cmd[len++] = ' ';
		memcpy(cmd + len, argv[i], n);
		len += n;
	}
	cmd[len++] = '\n';
	if (strlen(path) >= sizeof sa.sun_path)
		die_usage("socket path too long: %s", path);
	strcpy(sa.sun_path, path);

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
		fprintf(stderr, "tiernbd-ctl: %s: %s\n", path, strerror(errno));
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	if (send(fd, cmd, len, MSG_NOSIGNAL) != (ssize_t)len) {
		fprintf(stderr, "tiernbd-ctl: send: %s\n", strerror(errno));
		return 1;
	}
	shutdown(fd, SHUT_WR);
	for (;;) {
		ssize_t n = recv(fd, reply + rlen, sizeof reply - 1 - rlen, 0);

		if (n < 0) {
			fprintf(stderr, "tiernbd-ctl: no answer: %s\n", strerror(errno));
			return 1;
		}
		if (n == 0 || rlen + (size_t)n == sizeof reply - 1) {
			rlen += (size_t)n;
			break;
		}
		rlen += (size_t)n;
	}
	close(fd);
	reply[rlen] = '\0';
	/* the last line is "ok" or "error: ..." */
	while (rlen && reply[rlen - 1] == '\n')
		reply[--rlen] = '\0';
	last = strrchr(reply, '\n');
	last = last ? last + 1 : reply;
	if (!strcmp(last, "ok")) {
		*last = '\0';
		fputs(reply, stdout);
		return 0;
	}
	if (last != reply) {
		last[-1] = '\0';
		puts(reply);
	}
	fprintf(stderr, "tiernbd-ctl: %s\n", *last ? last : "empty reply");
	return 1;
}
