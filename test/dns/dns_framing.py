"""DNS over TCP framing (RFC 1035 §4.2.2: a two-byte length, then the message) for the
tests' clients, which run inside network namespaces as scripts of their own."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def read_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def read_frame(s):
    return read_exact(s, struct.unpack("!H", read_exact(s, 2))[0])


def read_message(s):
    import dns.message  # (dnspython: only the clients that parse need it)
    return dns.message.from_wire(read_frame(s))


def frame(q):
    w = q if isinstance(q, bytes) else q.to_wire()
    return struct.pack("!H", len(w)) + w


def client_script(body):
    """A client script's text, able to import this module from wherever it is written."""
    return (f"import sys\nsys.path.insert(0, {HERE!r})\n"
            "from dns_framing import frame, read_exact, read_message\n" + body)
