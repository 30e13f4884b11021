#define _GNU_SOURCE
#include "sysstat.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const ts_vmstat_names[TS_VM_NR] = {
#define X(k) #k,
	TS_VMSTAT_KEYS
#undef X
};

const char *const ts_mthp_stat_names[TS_MTHP_NSTATS] = {
	"swpout", "swpout_fallback", "swpin", "anon_fault_alloc",
};

void ts_vmstat_parse(struct ts_vmstat *s, const char *text)
{
	for (int k = 0; k < TS_VM_NR; k++)
		s->have[k] = ts_kv_lookup(text, ts_vmstat_names[k], &s->v[k]) == 0;
}

static void mthp_read(struct ts_vmstat *s)
{
	const char *dir = "/sys/kernel/mm/transparent_hugepage";
	DIR *d = opendir(dir);
	struct dirent *de;

	s->nr_mthp = 0;
	if (!d)
		return;
	while ((de = readdir(d)) && s->nr_mthp < TS_MTHP_MAX_SIZES) {
		unsigned kb;
		char tail[8];

		if (sscanf(de->d_name, "hugepages-%ukB%7s", &kb, tail) != 1)
			continue;
		unsigned i = s->nr_mthp++;
		s->mthp_kb[i] = kb;
		for (int k = 0; k < TS_MTHP_NSTATS; k++) {
			char path[512], buf[64];
			snprintf(path, sizeof(path), "%s/%s/stats/%s", dir, de->d_name,
				 ts_mthp_stat_names[k]);
			s->mthp_have[i][k] = ts_read_file(path, buf, sizeof(buf)) > 0;
			s->mthp[i][k] = s->mthp_have[i][k] ? strtoull(buf, NULL, 10) : 0;
		}
	}
	closedir(d);
	/* sort by size so output is stable */
	for (unsigned i = 1; i < s->nr_mthp; i++) {
		for (unsigned j = i; j > 0 && s->mthp_kb[j - 1] > s->mthp_kb[j]; j--) {
			unsigned tk = s->mthp_kb[j];
			uint64_t tv[TS_MTHP_NSTATS];
			bool th[TS_MTHP_NSTATS];
			memcpy(tv, s->mthp[j], sizeof(tv));
			memcpy(th, s->mthp_have[j], sizeof(th));
			s->mthp_kb[j] = s->mthp_kb[j - 1];
			memcpy(s->mthp[j], s->mthp[j - 1], sizeof(tv));
			memcpy(s->mthp_have[j], s->mthp_have[j - 1], sizeof(th));
			s->mthp_kb[j - 1] = tk;
			memcpy(s->mthp[j - 1], tv, sizeof(tv));
			memcpy(s->mthp_have[j - 1], th, sizeof(th));
		}
	}
}

int ts_vmstat_read(struct ts_vmstat *s)
{
	static const size_t len = 64 * 1024;
	char *buf = malloc(len);
	long r;

	memset(s, 0, sizeof(*s));
	if (!buf)
		return -ENOMEM;
	r = ts_read_file("/proc/vmstat", buf, len);
	if (r < 0) {
		free(buf);
		return (int)r;
	}
	ts_vmstat_parse(s, buf);
	free(buf);
	mthp_read(s);
	return 0;
}

uint64_t ts_vmstat_delta(const struct ts_vmstat *a, const struct ts_vmstat *b, enum ts_vmstat_key k)
{
	if (!a->have[k] || !b->have[k] || b->v[k] < a->v[k])
		return 0;
	return b->v[k] - a->v[k];
}

/* ---- memcg ---- */

/* Where cgroup2 is mounted (the first such line of /proc/self/mounts). */
static int cgroup2_mount(char *out, size_t len)
{
	char buf[8192], dev[256], dir[512], type[64];
	long r = ts_read_file("/proc/self/mounts", buf, sizeof(buf));
	char *line, *save = NULL;

	if (r < 0)
		return (int)r;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%255s %511s %63s", dev, dir, type) == 3 &&
		    strcmp(type, "cgroup2") == 0) {
			size_t n = strlen(dir);

			if (n >= len)
				return -ENAMETOOLONG;
			memcpy(out, dir, n + 1);
			return 0;
		}
	}
	return -ENOENT;
}

static int own_cgroup(char *out, size_t len)
{
	char buf[1024];
	long r = ts_read_file("/proc/self/cgroup", buf, sizeof(buf));
	char *p, *nl;

	if (r < 0)
		return (int)r;
	/* cgroup v2 line: "0::/path" */
	p = strstr(buf, "0::");
	if (!p)
		return -ENOENT;
	p += 3;
	nl = strchr(p, '\n');
	if (nl)
		*nl = '\0';
	snprintf(out, len, "%s", p);
	return 0;
}

int ts_memcg_create(struct ts_memcg *cg, const char *root, const char *name,
		    uint64_t max, int64_t swap_max, char *err, size_t errlen)
{
	char knob[600], val[32], rel[400], mnt[96];
	int e;

	memset(cg, 0, sizeof(*cg));
	if (strchr(name, '/') || !*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		snprintf(err, errlen, "bad memcg name '%s'", name);
		return -EINVAL;
	}
	e = own_cgroup(rel, sizeof(rel));
	if (e) {
		snprintf(err, errlen, "cannot read /proc/self/cgroup (cgroup v2?): %s", strerror(-e));
		return e;
	}
	/* our cgroup is relative to the mount, not to root (a parent memcg
	 * given with --cgroup-root) */
	if (cgroup2_mount(mnt, sizeof(mnt)))
		snprintf(mnt, sizeof(mnt), "%s", root);
	snprintf(cg->orig, sizeof(cg->orig), "%s%s", mnt, strcmp(rel, "/") ? rel : "");
	snprintf(cg->path, sizeof(cg->path), "%s/%s", root, name);
	if (mkdir(cg->path, 0755) < 0) {
		e = -errno;
		snprintf(err, errlen, "mkdir %s: %s", cg->path, strerror(errno));
		return e;
	}
	cg->created = true;
	snprintf(val, sizeof(val), "%" PRIu64, max);
	snprintf(knob, sizeof(knob), "%s/memory.max", cg->path);
	e = ts_write_file(knob, val);
	if (e) {
		snprintf(err, errlen, "write %s to %s: %s (memory controller enabled in %s/cgroup.subtree_control?)",
			 val, knob, strerror(-e), root);
		goto fail;
	}
	if (swap_max >= 0) {
		snprintf(val, sizeof(val), "%" PRId64, swap_max);
		snprintf(knob, sizeof(knob), "%s/memory.swap.max", cg->path);
		e = ts_write_file(knob, val);
		if (e) {
			snprintf(err, errlen, "write %s to %s: %s", val, knob, strerror(-e));
			goto fail;
		}
	}
	return 0;
fail:
	rmdir(cg->path);
	cg->created = false;
	return e;
}

int ts_memcg_enter(struct ts_memcg *cg, char *err, size_t errlen)
{
	char knob[600], val[32];
	int e;

	snprintf(knob, sizeof(knob), "%s/cgroup.procs", cg->path);
	snprintf(val, sizeof(val), "%d", (int)getpid());
	e = ts_write_file(knob, val);
	if (e) {
		snprintf(err, errlen, "write %s to %s: %s", val, knob, strerror(-e));
		return e;
	}
	cg->entered = true;
	return 0;
}

int ts_memcg_stat(const struct ts_memcg *cg, const char *key, uint64_t *val)
{
	char path[600], buf[8192];

	snprintf(path, sizeof(path), "%s/memory.stat", cg->path);
	if (ts_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	return ts_kv_lookup(buf, key, val);
}

int ts_memcg_read_u64(const struct ts_memcg *cg, const char *file, uint64_t *val)
{
	char path[600], buf[64];
	char *end;

	snprintf(path, sizeof(path), "%s/%s", cg->path, file);
	if (ts_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	*val = strtoull(buf, &end, 10);
	return end == buf ? -1 : 0;
}

int ts_memcg_destroy(struct ts_memcg *cg, char *err, size_t errlen)
{
	char knob[600], val[32];
	int e = 0;

	if (cg->entered) {
		snprintf(knob, sizeof(knob), "%s/cgroup.procs", cg->orig);
		snprintf(val, sizeof(val), "%d", (int)getpid());
		e = ts_write_file(knob, val);
		if (e) {
			snprintf(err, errlen, "move back to %s: %s", cg->orig, strerror(-e));
			return e;
		}
		cg->entered = false;
	}
	if (cg->created) {
		/* children just exited: the group may take a moment to empty */
		for (int i = 0; i < 100; i++) {
			if (rmdir(cg->path) == 0) {
				cg->created = false;
				return 0;
			}
			e = -errno;
			if (errno != EBUSY)
				break;
			usleep(10000);
		}
		snprintf(err, errlen, "rmdir %s: %s", cg->path, strerror(-e));
		return e;
	}
	return 0;
}

/* ---- pagemap ---- */

int ts_pagemap_read(pid_t pid, uintptr_t vaddr, size_t n, uint64_t *out)
{
	char path[64];
	size_t got = 0;
	int fd;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/pagemap");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < n) {
		off_t off = (off_t)((vaddr >> TS_PAGE_SHIFT) + got) * 8;
		ssize_t r = pread(fd, out + got, (n - got) * 8, off);
		if (r < 0) {
			int e = -errno;
			if (errno == EINTR)
				continue;
			close(fd);
			return e;
		}
		if (r == 0 || r % 8) {
			close(fd);
			return -EIO;
		}
		got += (size_t)r / 8;
	}
	close(fd);
	return 0;
}

int ts_pagemap_format(char *buf, size_t len, uint64_t index, uint64_t entry)
{
	if ((entry & TS_PM_SWAP) && !(entry & TS_PM_PRESENT))
		return snprintf(buf, len, "%" PRIu64 " %u %" PRIu64 "\n", index,
				TS_PM_SWAP_TYPE(entry), (uint64_t)TS_PM_SWAP_OFFSET(entry));
	return snprintf(buf, len, "%" PRIu64 " - -\n", index);
}
