/* tiernbd's command line: options into struct options, injection options
 * into the control commands they stand for. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "server.h"

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
"      --latency OPS=DIST     DIST: off|D|fixed:D|uniform:MIN,MAX|normal:MEAN,SD|lognormal:MEAN,SD\n"
"      --bandwidth RATE       bytes/s (K M G suffix) or off\n"
"      --seed N               seed of the latency and error generators\n"
"      --error-add OPS=START[+LEN|-END][,count=N][,errno=E]\n"
"      --error-rate OPS=RATE[,errno=E]   RATE: N% or Nppm\n"
"      --error-every OPS=N[,errno=E]\n"
"      --disconnect-after N   drop the connection that sends request N+1\n"
"  -v, --verbose              log every request\n"
"  -h, --help    -V, --version\n"
"D: a duration, ns us ms s (no unit: us). OPS: read write flush discard (= TRIM and WRITE_ZEROES;\n"
"trim and zero are aliases) rw all, comma-separated\n",
	      f);
}

_Noreturn void server_die_usage(const char *fmt, const char *arg)
{
	ts_usage_fail("tiernbd", fmt, arg);
}

/* Turn "OPS=REST" into a control command "<prefix> OPS REST..." with
 * commas in REST split into words when split is true. */
static void add_knob(struct options *o, const char *prefix, const char *val, bool split)
{
	size_t n = strlen(prefix) + strlen(val) + 2;
	char *s = malloc(n);
	char *eq;

	if (!s)
		server_die_usage("%s", "out of memory");
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
		server_die_usage("%s", "out of memory");
	o->knobs[o->nknobs++] = s;
}

void server_parse_args(int argc, char **argv, struct options *o)
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
				server_die_usage("bad size '%s'", optarg);
			break;
		case 'f': o->file = optarg; break;
		case O_DIRECT_: o->direct = true; break;
		case 'r': o->read_only = true; break;
		case 'n':
			if (strlen(optarg) > 256)
				server_die_usage("%s", "export name too long (256 bytes at most)");
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
				server_die_usage("bad --max-conns '%s' (1..1024)", optarg);
			break;
		case O_MAXREQ:
			if (ts_parse_size(optarg, NBD_SIZE_FLAGS, &o->max_request) || o->max_request < 4096 ||
			    o->max_request > (1u << 30))
				server_die_usage("bad --max-request '%s' (4K..1G)", optarg);
			break;
		case O_BUF:
			if (ts_parse_size(optarg, NBD_SIZE_FLAGS, &o->bufsize) || o->bufsize < 4096 ||
			    o->bufsize > (256u << 20))
				server_die_usage("bad --buffer '%s' (4K..256M)", optarg);
			break;
		case O_QD:
			if (ts_parse_uint(optarg, 0, UINT64_MAX, &o->queue_depth) || !o->queue_depth ||
			    o->queue_depth > 65536)
				server_die_usage("bad --queue-depth '%s' (1..65536)", optarg);
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
		case ':': server_die_usage("option '%s' needs an argument", argv[optind - 1]); break;
		default: server_die_usage("unknown option '%s' (see --help)", argv[optind - 1]); break;
		}
	}
	if (optind < argc)
		server_die_usage("unexpected argument '%s'", argv[optind]);
	if (!o->file && !o->size)
		server_die_usage("%s", "give --size for a RAM export or --file");
	if (o->direct && !o->file)
		server_die_usage("%s", "--direct needs --file");
	if (o->no_tcp && !o->unix_path)
		server_die_usage("%s", "--no-tcp needs --unix");
}
