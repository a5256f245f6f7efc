#!/usr/bin/python3
"""Replaces the rules of a running firewall appliance over its management port
(lib/firewall/include/keel/firewall/rule_updates.hpp):

  push_rules.py ADDRESS PORT KEY TABLES.bin [--generation N]

KEY is the appliance's fw_key (32 hex digits); TABLES.bin what `keel-fw compile` wrote.
GENERATION must exceed the last one the appliance loaded (default: the time in seconds).
Exit status 0 when the appliance answered "loaded"."""
import argparse
import socket
import struct
import sys
import time

MAGIC = b"KFW1"
BEGIN, DATA, COMMIT = 1, 2, 3
PIECE = 1024
MASK = (1 << 64) - 1


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & MASK


def siphash24(k0, k1, data):
    """SipHash-2-4 (Aumasson and Bernstein, 2012) of `data` under the key (k0, k1)."""
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573

    def rounds(n, v0, v1, v2, v3):
        for _ in range(n):
            v0 = (v0 + v1) & MASK; v1 = _rotl(v1, 13) ^ v0; v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & MASK; v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & MASK; v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & MASK; v1 = _rotl(v1, 17) ^ v2; v2 = _rotl(v2, 32)
        return v0, v1, v2, v3

    tail = len(data) % 8
    for (m,) in struct.iter_unpack("<Q", data[:len(data) - tail]):
        v3 ^= m
        v0, v1, v2, v3 = rounds(2, v0, v1, v2, v3)
        v0 ^= m
    m = (len(data) & 0xFF) << 56 | int.from_bytes(data[len(data) - tail:], "little")
    v3 ^= m
    v0, v1, v2, v3 = rounds(2, v0, v1, v2, v3)
    v0 ^= m
    v2 ^= 0xFF
    v0, v1, v2, v3 = rounds(4, v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


def tag(key_hex, generation, blob):
    k0, k1 = int(key_hex[:16], 16), int(key_hex[16:], 16)
    text = MAGIC + struct.pack(">QI", generation, len(blob)) + blob
    return struct.pack(">QQ", siphash24(k0, k1, text), siphash24(k0 ^ MASK, k1, text))


def push(address, port, key_hex, blob, generation, timeout=2.0, tries=5):
    """Sends the blob; returns (status, text) of the commit's answer (status 0: loaded)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(timeout)

    def ask(message):
        for _ in range(tries):
            s.sendto(message, (address, port))
            try:
                answer = s.recv(2048)
            except socket.timeout:
                continue
            if answer[:4] == MAGIC and answer[4] == (0x80 | message[4]):
                return answer[5], answer[14:].decode(errors="replace")
        raise TimeoutError(f"no answer from {address}:{port}")

    status, text = ask(MAGIC + bytes([BEGIN]) + struct.pack(">QI", generation, len(blob)))
    if status:
        return status, text
    for offset in range(0, len(blob), PIECE):
        status, text = ask(MAGIC + bytes([DATA]) + struct.pack(">I", offset) + blob[offset:offset + PIECE])
        if status:
            return status, text
    return ask(MAGIC + bytes([COMMIT]) + tag(key_hex, generation, blob))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("address")
    parser.add_argument("port", type=int)
    parser.add_argument("key")
    parser.add_argument("tables")
    parser.add_argument("--generation", type=int, default=int(time.time()))
    args = parser.parse_args()
    with open(args.tables, "rb") as f:
        blob = f.read()
    status, text = push(args.address, args.port, args.key, blob, args.generation)
    print(f"{args.address}:{args.port}: {text}")
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
