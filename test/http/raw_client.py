"""Sends raw requests to HTTP servers and returns every byte they answer,
for test/http/test_nginx_diff.py; runs with Debian's python3 inside the
test's network namespace (stdin and stdout are JSON).

Input: {"servers": [[address, port], ...], "cases": [base64 request bytes,
...]}. Each case goes to each server on a fresh connection in one write,
then the client half-closes (so both servers see the end and close after
answering what they took as complete: no idle timeout decides what was
answered) and reads until the server closes. Output: per case, per server,
[base64 answer, how it ended: "eof", "reset" or "stuck"].
"""
import base64
import concurrent.futures
import json
import socket
import sys

# A server that neither answers nor closes within this is stuck: a bug of
# its own, reported as such (never a pass).
STUCK_S = 20
WORKERS = 16


def exchange(server, data):
    got = b""
    try:
        with socket.create_connection(tuple(server), timeout=STUCK_S) as s:
            try:
                s.sendall(data)
                s.shutdown(socket.SHUT_WR)
            except (BrokenPipeError, ConnectionResetError):
                pass  # it closed before taking all of it: read what it said
            while True:
                piece = s.recv(65536)
                if not piece:
                    return got, "eof"
                got += piece
    except ConnectionResetError:
        return got, "reset"
    except socket.timeout:
        return got, "stuck"


def main():
    job = json.load(sys.stdin)
    cases = [base64.b64decode(c) for c in job["cases"]]
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        futures = [[pool.submit(exchange, server, data) for server in job["servers"]]
                   for data in cases]
        out = [[[base64.b64encode(got).decode(), end] for got, end in (f.result() for f in row)]
               for row in futures]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
