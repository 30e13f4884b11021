/* libFuzzer harness over tiernbd's handshake and request parsing.
 *
 * Input byte 0 picks the target:
 *   even: the input (from byte 1) is what a client sends; the engine
 *         runs the handshake and the transmission phase against a 1 MiB
 *         RAM export held in a malloc()ed block, so AddressSanitizer
 *         flags any access outside the export;
 *   odd:  the input is control-socket text, one command per line.
 * Every reply is read byte by byte so that a send from outside the
 * export is caught too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "conn.h"
#include "inject.h"
#include "util.h"

#define EXPORT_SIZE (1u << 20)

struct feed {
	const uint8_t *p;
	size_t len, pos;
	uint64_t sum;
};

static struct backend be;
static struct inject in;
static struct conn_cfg cfg;
static struct conn c;
static struct ts_outbuf out;

static ssize_t feed_recv(void *ctx, void *buf, size_t len, bool all)
{
	struct feed *f = ctx;
	size_t n = f->len - f->pos;

	(void)all;
	if (n > len)
		n = len;
	/* hand data over in small pieces now and then to exercise
	 * short reads */
	if (n > 7 && (f->pos & 1))
		n = 7;
	memcpy(buf, f->p + f->pos, n);
	f->pos += n;
	return (ssize_t)n;
}

static ssize_t feed_sendv(void *ctx, const struct iovec *iov, int cnt)
{
	struct feed *f = ctx;
	ssize_t total = 0;

	for (int i = 0; i < cnt; i++) {
		const uint8_t *b = iov[i].iov_base;

		for (size_t j = 0; j < iov[i].iov_len; j++)
			f->sum += b[j];
		total += (ssize_t)iov[i].iov_len;
	}
	return total;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	void *mem = malloc(EXPORT_SIZE);

	(void)argc;
	(void)argv;
	if (!mem)
		abort();
	memset(mem, 0x5a, EXPORT_SIZE);
	backend_wrap_ram(&be, mem, EXPORT_SIZE);
	cfg = (struct conn_cfg){
		.be = &be,
		.in = &in,
		.export_name = "fuzz",
		.description = "fuzz export",
		.max_request = 256 * 1024,
		.max_options = 32,
	};
	if (conn_alloc(&c, &cfg, 64 * 1024, 8) || ts_outbuf_init(&out, 64 * 1024))
		abort();
	return 0;
}

static void knob(const char *cmd)
{
	char line[128];
	char *w[16];
	int n;

	strcpy(line, cmd);
	n = split_words(line, w, 16);
	ts_outbuf_reset(&out);
	if (n <= 0 || inject_command(&in, n, w, &out))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feed f = { .p = data + 1, .len = size ? size - 1 : 0 };
	struct conn_io io = { .recv = feed_recv, .sendv = feed_sendv, .ctx = &f };

	if (size < 1)
		return 0;
	if (inject_init(&in, 7))
		abort();
	if (data[0] & 1) {
		/* control commands */
		char *text = malloc(size);
		char *save = NULL;

		if (!text)
			abort();
		memcpy(text, data + 1, size - 1);
		text[size - 1] = '\0';
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char *w[32];
			int n = split_words(l, w, 32);

			ts_outbuf_reset(&out);
			if (n > 0)
				(void)inject_command(&in, n, w, &out);
		}
		free(text);
	} else {
		knob("error add read 8K+4K count=2 errno=ENOSPC");
		knob("error add write,trim 64K+1");
		knob("error every write 5");
		knob("error rate read 200000");
		knob("disconnect after 40");
		conn_reset(&c, &io, 1, "fuzz", false);
		conn_run(&c);
	}
	inject_destroy(&in);
	return 0;
}
