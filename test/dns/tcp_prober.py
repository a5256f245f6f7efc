#!/usr/bin/python3
"""Sends every query to every server over TCP (RFC 7766) and records the raw
responses; prober.py's arguments and output. Runs inside the test's network
namespace:

    tcp_prober.py [--ready ZONE,...] QUERIES.json OUT.json NAME=ADDRESS:PORT...

Each server gets one connection, and the queries go out pipelined in
batches, each batch's responses read before the next (RFC 7766 §6.2.1.1:
a server may answer out of order, so they are matched by ID, then by
order). A connection the server closes is opened again; what it did not
answer is None.
"""
import json
import socket
import struct
import sys

import prober
from dns_framing import read_exact

BATCH = 32
TIMEOUT = 10  # seconds for one batch's responses: a missing one is a failure, not a wait


def ask_batch(where, wires):
    """[hex or None] for `wires`, pipelined on one new connection."""
    out = [None] * len(wires)
    s = socket.create_connection(where, timeout=TIMEOUT)
    try:
        s.sendall(b"".join(struct.pack("!H", len(w)) + w for w in wires))
        pending = {}
        for i, w in enumerate(wires):
            pending.setdefault(w[:2], []).append(i)
        for _ in wires:
            length = struct.unpack("!H", read_exact(s, 2))[0]
            response = read_exact(s, length)
            waiting = pending.get(response[:2])
            if waiting:
                out[waiting.pop(0)] = response.hex()
    except (ConnectionError, OSError):
        pass
    finally:
        s.close()
    return out


def main():
    args = sys.argv[1:]
    zones = []
    if args[0] == "--ready":
        zones, args = args[1].split(","), args[2:]
    queries_file, out_file, *specs = args
    servers = {}
    for spec in specs:
        name, where = spec.split("=")
        host, port = where.rsplit(":", 1)
        servers[name] = (host, int(port))
    prober.wait_ready(servers, zones)
    with open(queries_file) as f:
        wires = [bytes.fromhex(h) for _, h in json.load(f)]
    results = {}
    for name, where in servers.items():
        results[name] = []
        for first in range(0, len(wires), BATCH):
            results[name] += ask_batch(where, wires[first:first + BATCH])
    with open(out_file, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
