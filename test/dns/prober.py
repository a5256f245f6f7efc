#!/usr/bin/python3
"""Sends every query to every server over UDP and records the raw responses.
Runs inside the test's network namespace:

    prober.py [--ready ZONE,...] QUERIES.json OUT.json NAME=ADDRESS:PORT...

QUERIES.json is [[label, hex], ...]; OUT.json gets {server: [hex or null]}.
With --ready, it first waits (up to 30 s) until every server answers the SOA
of every ZONE authoritatively. Queries go out in batches, each on its own
connected socket, so a server that drops queries costs one short wait per
batch, not one per query. What one server left unanswered and another
answered is asked again, once, before it counts as no answer.
"""
import json
import select
import socket
import struct
import sys
import time

BATCH = 32
SETTLE = 0.15  # seconds without a response that end a batch
BATCH_LIMIT = 1.5
RETRY_SETTLE = 0.5
RETRY_LIMIT = 1.0


def exchange(wires, servers, pairs, settle, limit):
    """Sends wires[i] to server `name` for each (i, name); returns {(i, name): hex}."""
    sockets = {}
    for i, name in pairs:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setblocking(False)
        s.connect(servers[name])
        sockets[s] = (i, name)
        try:
            s.send(wires[i])
        except OSError:
            pass
    got = {}
    start = last = time.monotonic()
    waiting = set(sockets)
    while waiting:
        now = time.monotonic()
        if now - last > settle or now - start > limit:
            break
        ready, _, _ = select.select(list(waiting), [], [], settle)
        for s in ready:
            try:
                got[sockets[s]] = s.recv(65535).hex()
                last = time.monotonic()
            except OSError:
                pass
            waiting.discard(s)
    for s in sockets:
        s.close()
    return got


def soa_query(zone):
    name = b"".join(bytes([len(p)]) + p.encode() for p in zone.split(".") if p) + b"\0"
    return struct.pack("!HHHHHH", 0x4b45, 0, 1, 0, 0, 0) + name + struct.pack("!HH", 6, 1)


def authoritative_answer(hex_wire):
    return hex_wire is not None and int(hex_wire[4:6], 16) & 0x04 and hex_wire[12:16] != "0000"


def wait_ready(servers, zones, timeout=30):
    deadline = time.monotonic() + timeout
    pending = [(n, z) for n in servers for z in zones]
    while pending and time.monotonic() < deadline:
        wires = [soa_query(z) for _, z in pending]
        got = exchange(wires, servers, [(i, n) for i, (n, _) in enumerate(pending)], 0.2, 0.5)
        pending = [p for i, p in enumerate(pending) if not authoritative_answer(got.get((i, p[0])))]
        if pending:
            time.sleep(0.1)
    if pending:
        sys.exit(f"not answering: {pending}")


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
    wait_ready(servers, zones)
    with open(queries_file) as f:
        wires = [bytes.fromhex(h) for _, h in json.load(f)]
    results = {name: [None] * len(wires) for name in servers}
    for first in range(0, len(wires), BATCH):
        batch = range(first, min(first + BATCH, len(wires)))
        got = exchange(wires, servers, [(i, n) for i in batch for n in servers], SETTLE, BATCH_LIMIT)
        again = [(i, n) for i in batch for n in servers
                 if (i, n) not in got and any((i, o) in got for o in servers)]
        if again:
            got.update(exchange(wires, servers, again, RETRY_SETTLE, RETRY_LIMIT))
        for (i, name), hex_wire in got.items():
            results[name][i] = hex_wire
    with open(out_file, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
