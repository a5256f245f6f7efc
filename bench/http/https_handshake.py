"""TLS handshake time of examples/web (lib/tls on mbed TLS 3.6): curl's time_appconnect minus
time_connect, median of N new connections per TLS version, for the Linux-process build and
the image under QEMU (TCG), through a TAP device in a namespace this script makes (root):

    /usr/bin/python3 bench/http/https_handshake.py [N]

The figures are this machine's (2 shared cores, TCG: no KVM here, decision 0003); compare only
runs made together.
"""
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "net"))

from tcp_harness import KEEL, Net, run, service  # noqa: E402

NAME = "web.keel.test"


def handshakes(net, cert, version_args, n):
    times = []
    for _ in range(n):
        result = run(net.args(["curl", "-sS", "-o", "/dev/null", "--cacert", cert, "--resolve",
                               f"{NAME}:443:{KEEL}", "-w", "%{time_connect} %{time_appconnect}",
                               *version_args, f"https://{NAME}/"]), timeout=120)
        connect, appconnect = map(float, result.stdout.split())
        times.append((appconnect - connect) * 1000)
    return statistics.median(times), min(times), max(times)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    for platform in ("linux", "kvm"):
        net = Net()
        try:
            net.keel("examples/web", platform, ready=rf"listening on {KEEL}:80")
            cert = os.path.join(os.path.dirname(service("examples/web", platform)),
                                "test_tls_cert.pem")
            for label, args in (("TLS 1.3", ["--tlsv1.3"]),
                                ("TLS 1.2", ["--tlsv1.2", "--tls-max", "1.2"])):
                median, low, high = handshakes(net, cert, args, n)
                print(f"{platform:5} {label}: handshake median {median:.1f} ms "
                      f"(min {low:.1f}, max {high:.1f}, {n} connections)", flush=True)
        finally:
            net.close()


if __name__ == "__main__":
    main()
