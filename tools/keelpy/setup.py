"""Installs what Keel needs from Debian's packages (Debian 12, as root)."""
import glob
import os
import shutil
import subprocess
import tempfile

from .paths import KeelError

# Building and booting images.
BUILD_PACKAGES = ["cmake", "ninja-build", "g++", "binutils", "musl-dev", "qemu-system-x86",
                  "python3", "nlohmann-json3-dev",
                  # lib/mbedtls: `apt-get source` unpacks Debian 13's mbed TLS 3.6 with
                  # dpkg-source (decision 0105)
                  "dpkg-dev",
                  # examples/web: its throwaway TLS test pair is made at build time; test/http's
                  # HTTPS tests use s_client
                  "openssl",
                  # keel_static_files(... BROTLI): the brotli variants of static files
                  # (examples/web, test/http's site)
                  "brotli",
                  # keel debug: gdb on the image (through QEMU's gdb stub) or the Linux process
                  "gdb"]
# Running every test, fuzz target and the network peers the tests use.
TEST_PACKAGES = ["libgtest-dev", "python3-pytest", "clang", "libclang-rt-14-dev", "clang-format", "iproute2",
                 "iputils-ping", "iputils-arping", "dnsmasq-base", "python3-scapy", "nftables",
                 "procps", "time", "tcpdump",
                 # keel test: one run compiles the same sources in several build trees
                 "ccache",
                 # TCP against Linux (test/net/test_tcp_linux.py, bench/tcp): clients,
                 # the SYN flood, and gcc for bench/tcp's relay and load tools; iperf3 also
                 # for keel bench firewall-vm's TCP throughput through the routers
                 "iperf3", "curl", "netcat-openbsd", "hping3", "gcc",
                 # keel bench --quick: plots, and packing the Linux VM peer's initramfs
                 "python3-matplotlib", "cpio",
                 # keel bench http: the HTTP load generator
                 "wrk",
                 # test/dns: the reference servers, response comparison, bench/dns load
                 "nsd", "knot", "knot-dnsutils", "python3-dnspython", "dnsperf",
                 # dig, beside kdig, as a client of DNS over TCP (test/dns/test_tcp.py);
                 # delv, the validator of test/dns/test_dnssec.py
                 "bind9-dnsutils",
                 # test/dns/signer.py: ldns-signzone signs the NSEC zones (Knot the NSEC3 ones)
                 "ldnsutils",
                 # test/http/test_web.py: a REST client
                 "python3-requests",
                 # test/http/test_metrics.py: Prometheus' own text format parser
                 "python3-prometheus-client",
                 # test/http/test_static.py: the reference server of the differential
                 "nginx-light",
                 # test/http/test_testssl.py: the TLS scanner run against the image;
                 # test_https.py: h2load --h1, nghttp2's load generator as a client
                 "testssl.sh", "nghttp2-client",
                 # keel package --format libvirt (test_keel_package.py): libvirt's daemon and
                 # QEMU driver, its sysv flavour (CI machines may run no systemd; the test
                 # starts the daemon itself), virsh, and xmllint for virt-xml-validate
                 "libvirt-daemon-system", "libvirt-daemon-system-sysv",
                 "libvirt-daemon-driver-qemu", "libvirt-clients", "libxml2-utils",
                 # keel package --format disk: GRUB for BIOS and UEFI, grub-mkrescue's
                 # xorriso and mtools, and OVMF to boot the disk under UEFI
                 "grub-common", "grub-pc-bin", "grub-efi-amd64-bin", "xorriso", "mtools", "ovmf",
                 # keel package --format oci|kubevirt (test_keel_package_oci.py): Debian's OCI
                 # tools read, unpack and copy the layout; PyYAML reads the KubeVirt VMI
                 "umoci", "skopeo", "python3-yaml",
                 # keel package --format container and keel bench density's container side:
                 # podman, with runc (Debian's crun 1.8 refuses hosts whose cgroup v2
                 # hierarchy holds a controller beside v1's, decision 0118)
                 "podman", "runc"]


def missing(packages):
    result = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Status}\\n", *packages],
                            capture_output=True, text=True)
    installed = {line.split()[0] for line in result.stdout.splitlines()
                 if line.endswith("install ok installed")}
    return [p for p in packages if p not in installed]


def install(with_tests=False):
    packages = BUILD_PACKAGES + (TEST_PACKAGES if with_tests else [])
    if shutil.which("dpkg-query") is None:
        raise KeelError("keel setup needs a Debian system (dpkg/apt-get)")
    todo = missing(packages)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if todo:
        if os.geteuid() != 0:
            raise KeelError(f"missing packages: {' '.join(todo)}; run `tools/keel setup` as root")
        print(f"keel: installing {' '.join(todo)}", flush=True)
        run(["apt-get", "update", "-qq"], env)
        run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *todo], env)
    fetch_mbedtls(env)


# lib/mbedtls: mbed TLS 3.6 LTS from Debian 13's source package, compiled by Keel's build with
# its own config (decision 0105). Debian 12 ships 2.28, which has no TLS 1.3. Only a deb-src
# entry is added: no binary package comes from trixie. apt checks the source files against the
# signed Sources index.
MBEDTLS_DIR = "/usr/local/src/keel/mbedtls"
MBEDTLS_SOURCE = "mbedtls/trixie"
TRIXIE_SOURCES = "/etc/apt/sources.list.d/keel-trixie-src.sources"
TRIXIE_ENTRY = """Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""


def mbedtls_present():
    info = os.path.join(MBEDTLS_DIR, "include/mbedtls/build_info.h")
    return os.path.exists(info) and "0x0306" in open(info).read()


def fetch_mbedtls(env):
    if mbedtls_present():
        return
    if os.geteuid() != 0:
        raise KeelError(f"mbed TLS 3.6 source missing in {MBEDTLS_DIR}; run `tools/keel setup` as root")
    print(f"keel: unpacking Debian's {MBEDTLS_SOURCE} source into {MBEDTLS_DIR}", flush=True)
    if not os.path.exists(TRIXIE_SOURCES):
        with open(TRIXIE_SOURCES, "w") as f:
            f.write(TRIXIE_ENTRY)
    run(["apt-get", "update", "-qq"], env)
    with tempfile.TemporaryDirectory() as work:
        # As root with no sandbox user: the download lands in a folder only root can write.
        run(["apt-get", "source", "-qq", "-o", "APT::Sandbox::User=root", MBEDTLS_SOURCE],
            env, cwd=work)
        trees = [d for d in glob.glob(os.path.join(work, "mbedtls-*")) if os.path.isdir(d)]
        if len(trees) != 1:
            raise KeelError(f"`apt-get source {MBEDTLS_SOURCE}` unpacked {trees}")
        os.makedirs(os.path.dirname(MBEDTLS_DIR), exist_ok=True)
        shutil.rmtree(MBEDTLS_DIR, ignore_errors=True)
        shutil.move(trees[0], MBEDTLS_DIR)
    if not mbedtls_present():
        raise KeelError(f"{MBEDTLS_DIR} is not mbed TLS 3.6 after `apt-get source {MBEDTLS_SOURCE}`")


def run(step, env, cwd=None):
    if subprocess.run(step, env=env, cwd=cwd).returncode != 0:
        raise KeelError(f"`{' '.join(step)}` failed")
