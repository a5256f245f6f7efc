"""NSD and Knot as reference servers, started on the same zone files inside a
network namespace (the caller's) and stopped again. Both are configured the
way Keel answers: minimal responses, no version or identity over CHAOS, no
response rate limiting, one worker each (bench/dns compares them on one core)."""
import os
import signal
import subprocess

NSD_CONF = """server:
  ip-address: {address}@{port}
  zonesdir: {zones}
  pidfile: {work}/nsd.pid
  database: ""
  xfrdfile: {work}/xfrd.state
  zonelistfile: {work}/zone.list
  logfile: {work}/nsd.log
  username: ""
  chroot: ""
  hide-version: yes
  hide-identity: yes
  minimal-responses: yes
  refuse-any: no
  rrl-ratelimit: 0
  rrl-whitelist-ratelimit: 0
  server-count: 1
  verbosity: 0
remote-control:
  control-enable: no
"""

KNOT_CONF = """server:
  listen: {address}@{port}
  rundir: {work}
  user: root
  identity: ""
  version: ""
  udp-workers: 1
  tcp-workers: 1
  background-workers: 1
log:
  - target: {work}/knot.log
    any: warning
database:
  storage: {work}/knotdb
template:
  - id: default
    storage: {zones}
    zonefile-sync: -1
    zonefile-load: whole
    journal-content: none
zone:
"""


class Reference:
    """One reference server; `exec_args` wraps a command to run in the namespace.
    `provide_xfr`: a prefix NSD allows zone transfers to ("10.0.0.0/8"); none by default.
    `tsig_key`: (algorithm, name, base64 secret): NSD's `key:` clause, and provide-xfr needs it."""

    def __init__(self, kind, work, zones_dir, zones, address, port, exec_args, provide_xfr=None,
                 tsig_key=None):
        self.kind, self.address, self.port = kind, address, port
        self.work = os.path.join(work, kind)
        os.makedirs(self.work, exist_ok=True)
        fields = dict(address=address, port=port, zones=zones_dir, work=self.work)
        conf = os.path.join(self.work, f"{kind}.conf")
        with open(conf, "w") as f:
            if kind == "nsd":
                f.write(NSD_CONF.format(**fields))
                if tsig_key:
                    f.write(f"key:\n  name: {tsig_key[1]}\n  algorithm: {tsig_key[0]}\n"
                            f"  secret: \"{tsig_key[2]}\"\n")
                for z in zones:
                    f.write(f"zone:\n  name: {z}\n  zonefile: {z}.zone\n")
                    if provide_xfr:
                        f.write(f"  provide-xfr: {provide_xfr} {tsig_key[1] if tsig_key else 'NOKEY'}\n")
                args = ["nsd", "-d", "-c", conf]
            else:
                f.write(KNOT_CONF.format(**fields))
                for z in zones:
                    f.write(f"  - domain: {z}\n    file: {z}.zone\n")
                os.makedirs(os.path.join(self.work, "knotdb"), exist_ok=True)
                args = ["knotd", "-c", conf]
        self.output = open(os.path.join(self.work, "output.log"), "w+")
        self.process = subprocess.Popen(exec_args(args), stdout=self.output, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, start_new_session=True)

    def log(self):
        text = ""
        for name in ("output.log", "nsd.log", "knot.log"):
            path = os.path.join(self.work, name)
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    text += f.read()[-3000:]
        return text

    def close(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        self.output.close()
