#define _GNU_SOURCE
#include "um_args.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

const char um_usage[] =
"usage: usemem [options] size[k|m|g|t]\n"
"vm-scalability usemem compatible: each task maps SIZE, writes every word\n"
"(p[i] = i), reports '<bytes> bytes / <us> usecs = <KB/s> KB/s' and\n"
"'<us> usecs to free memory'; then prints a key=value summary.\n"
"    -n|--nproc N        do job in N processes\n"
"    -t|--thread M       do job in M threads (per process)\n"
"    -a|--malloc         obtain memory from malloc()\n"
"    -f|--file FILE      mmap FILE (MAP_SHARED), default /dev/zero (private)\n"
"    -F|--prefault       prefault mmap with MAP_POPULATE\n"
"    -j|--step SIZE      step size in the read/write loop\n"
"    -r|--repeat N       repeat read/write N times (repeats verify the data)\n"
"    -o|--readonly       readonly access\n"
"    -w|--open-rw        open() and mmap() file in RW mode\n"
"    -R|--random         random access pattern\n"
"    -M|--mlock          mlock() the memory\n"
"    -s|--sleep SEC      sleep SEC seconds when done\n"
"    -T|--runtime SEC    terminate after SEC seconds\n"
"    -q|--quiet          operate quietly\n"
"    -y|--sync-rw        sync between tasks after allocate memory\n"
"    -x|--sync-free      sync between tasks before free memory\n"
"    -O|--anonymous      mmap with MAP_ANONYMOUS\n"
"    -Z|--read-again     read memory again after access (verifies p[i] == i)\n"
"    --punch-holes       free every other page after allocation\n"
"    --init-time         account/show initialization time separately from run time\n"
"    --touch-alloc       write memory right after allocating it\n"
"    --seed S            seed of -R (tierswap; default 1)\n"
"    --json              summary as one JSON object (tierswap)\n"
"    -h|--help           show this message\n"
"Not supported here (exit 2): -P -u -b -B -d -p -g -L -D -E -N -H -W -e -U -A -S -m.\n";

void um_config_defaults(struct um_config *c)
{
	memset(c, 0, sizeof(*c));
	c->nr_task = 1;
	c->file = "/dev/zero";
	c->step = sizeof(long);
	c->repeat = 1;
	c->seed = 1;
}

enum { OPT_PUNCH = 256, OPT_INIT_TIME, OPT_TOUCH, OPT_SEED, OPT_JSON };

static const struct option opts[] = {
	{ "nproc", required_argument, NULL, 'n' },
	{ "thread", required_argument, NULL, 't' },
	{ "malloc", no_argument, NULL, 'a' },
	{ "file", required_argument, NULL, 'f' },
	{ "prefault", no_argument, NULL, 'F' },
	{ "step", required_argument, NULL, 'j' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "readonly", no_argument, NULL, 'o' },
	{ "open-rw", no_argument, NULL, 'w' },
	{ "random", no_argument, NULL, 'R' },
	{ "mlock", no_argument, NULL, 'M' },
	{ "sleep", required_argument, NULL, 's' },
	{ "runtime", required_argument, NULL, 'T' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "sync-rw", no_argument, NULL, 'y' },
	{ "sync-free", no_argument, NULL, 'x' },
	{ "anonymous", no_argument, NULL, 'O' },
	{ "read-again", no_argument, NULL, 'Z' },
	{ "punch-holes", no_argument, NULL, OPT_PUNCH },
	{ "init-time", no_argument, NULL, OPT_INIT_TIME },
	{ "touch-alloc", no_argument, NULL, OPT_TOUCH },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int um_parse_args(int argc, char **argv, struct um_config *c, char *err, size_t errlen)
{
	int ch;
	uint64_t u;

	/* getopt keeps its state in globals: restart it for every parse */
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "n:t:af:Fj:r:owRMs:T:qyxOZhPu:b:B:dp:gLDENHWe:UASm:",
				 opts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			if (ts_parse_uint(optarg, 1, 4096, &u))
				goto bad;
			c->nr_task = (unsigned)u;
			break;
		case 't':
			if (ts_parse_uint(optarg, 1, 1024, &u))
				goto bad;
			c->nr_thread = (unsigned)u;
			break;
		case 'a': c->malloc_mem = true; break;
		case 'f': c->file = optarg; c->file_set = true; break;
		case 'F': c->prefault = true; break;
		case 'j':
			if (ts_parse_size(optarg, WL_SIZE_FLAGS, &c->step) || c->step == 0)
				goto bad;
			break;
		case 'r':
			if (ts_parse_uint(optarg, 1, 1000000, &u))
				goto bad;
			c->repeat = (unsigned)u;
			break;
		case 'o': c->readonly = true; break;
		case 'w': c->open_rw = true; break;
		case 'R': c->random = true; break;
		case 'M': c->mlock_mem = true; break;
		case 's':
			if (ts_parse_uint(optarg, 0, 86400, &u))
				goto bad;
			c->sleep_secs = (unsigned)u;
			break;
		case 'T':
			if (ts_parse_uint(optarg, 0, 86400, &u))
				goto bad;
			c->runtime_secs = (unsigned)u;
			break;
		case 'q': c->quiet = true; break;
		case 'y': c->sync_rw = true; break;
		case 'x': c->sync_free = true; break;
		case 'O': c->anonymous = true; break;
		case 'Z': c->read_again = true; break;
		case OPT_PUNCH: c->punch_holes = true; break;
		case OPT_INIT_TIME: c->init_time = true; break;
		case OPT_TOUCH: c->touch_alloc = true; break;
		case OPT_SEED:
			if (ts_parse_uint(optarg, 0, UINT64_MAX, &c->seed))
				goto bad;
			break;
		case OPT_JSON: c->json = true; break;
		case 'h': return 1;
		case '?':
			if (optopt)
				snprintf(err, errlen, "unknown option or missing value: -%c", optopt);
			else
				snprintf(err, errlen, "unknown option '%s'", argv[optind - 1]);
			return -1;
		default:
			snprintf(err, errlen, "option -%c is not supported by this usemem", ch);
			return -1;
		}
		continue;
bad:
		snprintf(err, errlen, "bad value '%s' for -%c", optarg, ch);
		return -1;
	}
	if (optind != argc - 1) {
		snprintf(err, errlen, optind >= argc ? "missing size" : "exactly one size argument expected");
		return -1;
	}
	if (ts_parse_size(argv[optind], WL_SIZE_FLAGS, &c->bytes)) {
		snprintf(err, errlen, "bad size '%s'", argv[optind]);
		return -1;
	}
	if (c->step < sizeof(long))
		c->step = sizeof(long);
	if (c->step % sizeof(long)) {
		snprintf(err, errlen, "--step must be a multiple of %zu", sizeof(long));
		return -1;
	}
	if (c->malloc_mem && (c->anonymous || c->prefault || c->file_set)) {
		snprintf(err, errlen, "-a (malloc) excludes -O, -F and -f");
		return -1;
	}
	if (c->malloc_mem && c->punch_holes) {
		snprintf(err, errlen, "--punch-holes needs mmap memory, not -a");
		return -1;
	}
	return 0;
}
