#!/usr/bin/python3
"""Replaces the rules of a running firewall appliance over its management port
(lib/firewall/include/keel/firewall/update_channel.hpp):

  push_rules.py ADDRESS PORT KEY TABLES.bin [--generation N]

KEY is the appliance's fw_key (32 to 128 hex digits); TABLES.bin what `keel-fw compile` wrote.
GENERATION must exceed the last one the appliance loaded (default: the time in seconds).
Every message carries an HMAC-SHA-256 (Python's hmac and hashlib); the appliance answers only
authenticated, fresh requests, so a wrong key looks like an appliance that is not there.
Exit status 0 when the appliance answered that the blob is loaded."""
import argparse
import hashlib
import hmac
import os
import socket
import struct
import sys
import time

MAGIC = b"KFW2"
HELLO, BEGIN, DATA, COMMIT = 1, 2, 3, 4
REPLY = 0x80
PIECE = 1024
MAC_BYTES = 32
HEADER = struct.Struct(">4sB16sQ")  # MAGIC TYPE SESSION SEQ
RESULT = struct.Struct(">BBQ")  # STATUS DETAIL LOADED_GENERATION
STATUS_TEXT = {0: "loaded", 1: "size out of bounds", 2: "generation not above the last one loaded",
               3: "bad piece", 4: "pieces missing", 5: "digest does not match the blob",
               6: "blob refused", 7: "not the upload in progress"}


def message(key, kind, session, seq, body):
    """One request (or reply): header, body, HMAC-SHA-256 of both under `key`."""
    text = HEADER.pack(MAGIC, kind, session, seq) + body
    return text + hmac.new(key, text, hashlib.sha256).digest()


def opened(key, data):
    """(type, session, seq, body) of an authentic message, else None."""
    if len(data) < HEADER.size + MAC_BYTES:
        return None
    text, mac = data[:-MAC_BYTES], data[-MAC_BYTES:]
    if not hmac.compare_digest(hmac.new(key, text, hashlib.sha256).digest(), mac):
        return None
    magic, kind, session, seq = HEADER.unpack_from(text)
    return (kind, session, seq, text[HEADER.size:]) if magic == MAGIC else None


class Session:
    """A session with the appliance: HELLO, then requests under its challenge, one at a time.
    A request that goes unanswered is sent again with the next sequence number (the appliance
    drops a repeated one as a replay)."""

    def __init__(self, address, port, key, timeout=2.0, tries=5):
        self.peer, self.key, self.tries = (address, port), key, tries
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.settimeout(timeout)
        # HELLO's SEQ must exceed every HELLO the appliance took since it booted.
        nonce = os.urandom(16)
        body = self._ask(HELLO, nonce, lambda: time.time_ns(), bytes(16))
        self.challenge, self.seq = body[:16], 0

    def _ask(self, kind, session, next_seq, body):
        for _ in range(self.tries):
            seq = next_seq()
            self.sock.sendto(message(self.key, kind, session, seq, body), self.peer)
            deadline = time.monotonic() + self.sock.gettimeout()
            while time.monotonic() < deadline:
                try:
                    answer = opened(self.key, self.sock.recv(2048))
                except socket.timeout:
                    break
                if answer and answer[:3] == (REPLY | kind, session, seq):
                    return answer[3]
        raise TimeoutError(f"no authenticated answer from {self.peer[0]}:{self.peer[1]} (wrong key?)")

    def ask(self, kind, body):
        def next_seq():
            self.seq += 1
            return self.seq
        return self._ask(kind, self.challenge, next_seq, body)


def push(address, port, key_hex, blob, generation, timeout=2.0, tries=5):
    """Sends the blob; returns (status, text) of the commit's answer (status 0: loaded)."""
    key = bytes.fromhex(key_hex)
    session = Session(address, port, key, timeout, tries)

    def result(body):
        status, detail, loaded = RESULT.unpack(body)
        text = STATUS_TEXT.get(status, f"status {status}")
        return status, f"{text} (detail {detail}, generation {loaded})" if status else text

    status, text = result(session.ask(BEGIN, struct.pack(">QI", generation, len(blob))))
    if status:
        return status, text
    for offset in range(0, len(blob), PIECE):
        answer = session.ask(DATA, struct.pack(">I", offset) + blob[offset:offset + PIECE])
        if answer[0]:
            return answer[0], f"piece at {offset}: {STATUS_TEXT.get(answer[0])}"
    return result(session.ask(COMMIT, struct.pack(">Q", generation) + hashlib.sha256(blob).digest()))


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
