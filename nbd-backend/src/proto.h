/* NBD wire constants (see the NBD protocol document, doc/proto.md of the
 * reference implementation).  Only what tiernbd speaks is listed. */
#ifndef TIERNBD_PROTO_H
#define TIERNBD_PROTO_H

#include <stdint.h>

#define NBD_MAGIC           UINT64_C(0x4e42444d41474943) /* "NBDMAGIC" */
#define NBD_IHAVEOPT        UINT64_C(0x49484156454f5054) /* "IHAVEOPT" */
#define NBD_REP_MAGIC       UINT64_C(0x0003e889045565a9)
#define NBD_REQUEST_MAGIC   UINT32_C(0x25609513)
#define NBD_SIMPLE_REPLY_MAGIC UINT32_C(0x67446698)

/* handshake flags (server) and client flags */
#define NBD_FLAG_FIXED_NEWSTYLE   (1u << 0)
#define NBD_FLAG_NO_ZEROES        (1u << 1)
#define NBD_FLAG_C_FIXED_NEWSTYLE (1u << 0)
#define NBD_FLAG_C_NO_ZEROES      (1u << 1)

/* transmission flags */
#define NBD_FLAG_HAS_FLAGS         (1u << 0)
#define NBD_FLAG_READ_ONLY         (1u << 1)
#define NBD_FLAG_SEND_FLUSH        (1u << 2)
#define NBD_FLAG_SEND_FUA          (1u << 3)
#define NBD_FLAG_ROTATIONAL        (1u << 4)
#define NBD_FLAG_SEND_TRIM         (1u << 5)
#define NBD_FLAG_SEND_WRITE_ZEROES (1u << 6)
#define NBD_FLAG_SEND_DF           (1u << 7)
#define NBD_FLAG_CAN_MULTI_CONN    (1u << 8)

/* options */
#define NBD_OPT_EXPORT_NAME   1
#define NBD_OPT_ABORT         2
#define NBD_OPT_LIST          3
#define NBD_OPT_STARTTLS      5
#define NBD_OPT_INFO          6
#define NBD_OPT_GO            7
#define NBD_OPT_STRUCTURED_REPLY 8

/* option replies */
#define NBD_REP_ACK     1u
#define NBD_REP_SERVER  2u
#define NBD_REP_INFO    3u
#define NBD_REP_ERR(n)  ((1u << 31) | (n))
#define NBD_REP_ERR_UNSUP    NBD_REP_ERR(1)
#define NBD_REP_ERR_POLICY   NBD_REP_ERR(2)
#define NBD_REP_ERR_INVALID  NBD_REP_ERR(3)
#define NBD_REP_ERR_UNKNOWN  NBD_REP_ERR(6)
#define NBD_REP_ERR_TOO_BIG  NBD_REP_ERR(9)

/* NBD_REP_INFO types */
#define NBD_INFO_EXPORT      0
#define NBD_INFO_NAME        1
#define NBD_INFO_DESCRIPTION 2
#define NBD_INFO_BLOCK_SIZE  3

/* commands */
#define NBD_CMD_READ         0
#define NBD_CMD_WRITE        1
#define NBD_CMD_DISC         2
#define NBD_CMD_FLUSH        3
#define NBD_CMD_TRIM         4
#define NBD_CMD_CACHE        5
#define NBD_CMD_WRITE_ZEROES 6
#define NBD_CMD_BLOCK_STATUS 7

/* command flags */
#define NBD_CMD_FLAG_FUA       (1u << 0)
#define NBD_CMD_FLAG_NO_HOLE   (1u << 1)
#define NBD_CMD_FLAG_DF        (1u << 2)
#define NBD_CMD_FLAG_REQ_ONE   (1u << 3)
#define NBD_CMD_FLAG_FAST_ZERO (1u << 4)

/* errors on the wire (values are fixed by the protocol) */
#define NBD_EPERM      1
#define NBD_EIO        5
#define NBD_ENOMEM    12
#define NBD_EINVAL    22
#define NBD_ENOSPC    28
#define NBD_EOVERFLOW 75
#define NBD_ENOTSUP   95
#define NBD_ESHUTDOWN 108

#define NBD_REQUEST_SIZE 28
#define NBD_SIMPLE_REPLY_SIZE 16
#define NBD_MAX_STRING 4096

static inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}
static inline uint32_t get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t get_be64(const uint8_t *p)
{
	return ((uint64_t)get_be32(p) << 32) | get_be32(p + 4);
}
static inline void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}
static inline void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}
static inline void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

#endif
