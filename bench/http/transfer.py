"""The full-size transfers of issue 23 against examples/web, where the CI test
(test/http/test_web_scale.py) cuts them: a 1 GiB download and a 100 MB upload,
SHA-256 checked on both sides, through the impairment relay (1% loss, 2%
reordering, 1 ms delay) for the Linux-process build and the image under QEMU
(TCG, 64 MiB), and the image directly. Root; a namespace this script makes:

    /usr/bin/python3 bench/http/transfer.py [linux-impaired kvm kvm-impaired]

Prints one line per run; bench/results/http-transfer.md has the last result.
The times are this machine's (2 shared cores, TCG); a check, not a benchmark.
"""
import hashlib
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "http"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "net"))

import test_web_scale as scale  # noqa: E402

RUNS = {
    "linux-impaired": ("linux", scale.IMPAIR),
    "kvm": ("kvm", None),
    "kvm-impaired": ("kvm", scale.IMPAIR),
}


def main(names):
    down, up = scale.GIB, 100 * scale.MB
    with tempfile.NamedTemporaryFile(prefix="keel-upload-") as f:
        h = hashlib.sha256()
        for _ in range(up // scale.MB):
            chunk = os.urandom(scale.MB)
            h.update(chunk)
            f.write(chunk)
        f.flush()
        expected = scale.stream_sha256(down)
        for name in names:
            platform, impair = RUNS[name]
            net = scale.start(platform, args=f"{scale.ARGS} {scale.TRANSFER_ARGS}", impair=impair)
            try:
                t = time.monotonic()
                ok_down = scale.download_sha256(net, down, timeout=3600) == expected
                t_down = time.monotonic() - t
                t = time.monotonic()
                ok_up = scale.upload(net, f.name, timeout=3600) == {"bytes": up,
                                                                      "sha256": h.hexdigest()}
                t_up = time.monotonic() - t
                relay = net.relay_counts() if impair else {}
            finally:
                net.close()
            print(f"| {name} | {down} | {'exact' if ok_down else 'WRONG'} | {t_down:.1f} s "
                  f"| {up} | {'exact' if ok_up else 'WRONG'} | {t_up:.1f} s "
                  f"| {relay.get('dropped', '-')} | {relay.get('reordered', '-')} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or list(RUNS))
