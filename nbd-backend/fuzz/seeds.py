#!/usr/bin/env python3
"""Write seed inputs for fuzz-conn into the directory given as argv[1]."""
import os
import struct
import sys

IHAVEOPT = 0x49484156454F5054


def opt(o, data=b""):
    return struct.pack(">QII", IHAVEOPT, o, len(data)) + data


def req(cmd, off, length, flags=0, cookie=1, payload=b""):
    return struct.pack(">IHHQQI", 0x25609513, flags, cmd, cookie, off, length) + payload


def go(name=b"", infos=(3,)):
    d = struct.pack(">I", len(name)) + name + struct.pack(">H", len(infos))
    d += b"".join(struct.pack(">H", i) for i in infos)
    return opt(7, d)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    flags = struct.pack(">I", 3)
    io = (req(1, 0, 4096, payload=b"\xaa" * 4096) + req(0, 0, 4096)
          + req(3, 0, 0) + req(4, 4096, 8192) + req(6, 0, 4096, flags=2)
          + req(1, 8192, 512, flags=1, payload=b"\x01" * 512) + req(0, 8192, 4096)
          + req(0, (1 << 20) - 1, 2) + req(9, 0, 0) + req(2, 0, 0))
    seeds = {
        "go": b"\0" + flags + go(b"fuzz", (0, 1, 2, 3)) + io,
        "export-name": b"\0" + flags + opt(1, b"fuzz") + io,
        "list-info": b"\0" + flags + opt(3) + opt(6, struct.pack(">IH", 0, 0)) + opt(8)
                     + opt(5) + go() + io,
        "abort": b"\0" + flags + opt(2),
        "ctl": b"\1latency read normal:100,20\nerror add read 0+4K count=1 errno=EIO\n"
               b"error rate write 1000\nerror list\nstats\nshow\nerror del 1\n"
               b"bandwidth 10M\nseed 3\ndisconnect after 5\n",
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
