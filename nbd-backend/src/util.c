#define _GNU_SOURCE
#include "util.h"
#include "proto.h"

#include <errno.h>
#include <string.h>

static const struct {
	const char *name;
	uint32_t val;
} nbd_errnos[] = {
	{ "EPERM", NBD_EPERM },         { "EIO", NBD_EIO },
	{ "ENOMEM", NBD_ENOMEM },       { "EINVAL", NBD_EINVAL },
	{ "ENOSPC", NBD_ENOSPC },       { "EOVERFLOW", NBD_EOVERFLOW },
	{ "ENOTSUP", NBD_ENOTSUP },     { "ESHUTDOWN", NBD_ESHUTDOWN },
};

int nbd_errno_parse(const char *s, uint32_t *out)
{
	uint64_t v;

	for (size_t i = 0; i < sizeof nbd_errnos / sizeof nbd_errnos[0]; i++) {
		if (!strcasecmp(s, nbd_errnos[i].name)) {
			*out = nbd_errnos[i].val;
			return 0;
		}
	}
	if (ts_parse_uint(s, 0, UINT64_MAX, &v) == 0) {
		for (size_t i = 0; i < sizeof nbd_errnos / sizeof nbd_errnos[0]; i++) {
			if (nbd_errnos[i].val == v) {
				*out = (uint32_t)v;
				return 0;
			}
		}
	}
	return -1;
}

const char *nbd_errno_name(uint32_t e)
{
	for (size_t i = 0; i < sizeof nbd_errnos / sizeof nbd_errnos[0]; i++)
		if (nbd_errnos[i].val == e)
			return nbd_errnos[i].name;
	return "E?";
}

uint32_t nbd_errno_from_host(int err)
{
	switch (err) {
	case 0: return 0;
	case EPERM: case EROFS: case EACCES: return NBD_EPERM;
	case ENOMEM: return NBD_ENOMEM;
	case EINVAL: return NBD_EINVAL;
	case ENOSPC: case EFBIG: case EDQUOT: return NBD_ENOSPC;
	case EOVERFLOW: return NBD_EOVERFLOW;
	case EOPNOTSUPP: return NBD_ENOTSUP;
	case ESHUTDOWN: return NBD_ESHUTDOWN;
	default: return NBD_EIO;
	}
}

int split_words(char *line, char **argv, int max)
{
	int n = 0;
	char *save = NULL;

	for (char *w = strtok_r(line, " \t\r\n", &save); w;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max)
			return -1;
		argv[n++] = w;
	}
	return n;
}
