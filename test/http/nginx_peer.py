"""nginx (Debian's nginx-light) serving examples/web/site beside Keel, for
the differential tests (test_static.py, test_nginx_diff.py): one instance
in the test's network namespace, listening on its loopback, gzip_static on,
with the same files and modification times, and the .gz variants
keel_static_files makes (gzip -9 -n, kept when smaller) beside them.
"""
import os
import shutil
import subprocess
import tempfile
import time

import pytest

from tcp_harness import ROOT, run

SITE = os.path.join(ROOT, "examples", "web", "site")
PORT = 8080
ADDRESS = "127.0.0.1"
URL = f"http://{ADDRESS}:{PORT}"

CONF = """
daemon off;
master_process off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log;
events {{ worker_connections 64; }}
http {{
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  client_body_temp_path {dir}/body;
  server {{
    listen {address}:{port};
    root {dir}/site;
    gzip_static on;
    gzip_vary on;
  }}
}}
"""


def copy_site(work):
    """The site with its gzip variants, each with the original's time, as
    gzip_static wants them."""
    shutil.copytree(SITE, os.path.join(work, "site"))
    for root, _, names in os.walk(os.path.join(work, "site")):
        for name in names:
            path = os.path.join(root, name)
            gz = subprocess.run(["gzip", "-9", "-n", "-c", path], capture_output=True,
                                check=True).stdout
            if len(gz) < os.path.getsize(path):
                with open(path + ".gz", "wb") as f:
                    f.write(gz)
                st = os.stat(path)
                os.utime(path + ".gz", (st.st_atime, st.st_mtime))


def serve(net):
    """Starts nginx in `net` (a tcp_harness.Net); a generator for a fixture:
    yields once it answers, removes its folder after."""
    if shutil.which("nginx") is None:
        pytest.skip("nginx is not installed (tools/keel setup --tests installs nginx-light)")
    work = tempfile.mkdtemp(prefix="keel-nginx-")
    try:
        copy_site(work)
        with open(os.path.join(work, "nginx.conf"), "w") as f:
            f.write(CONF.format(dir=work, address=ADDRESS, port=PORT))
        os.chmod(work, 0o755)
        net.start(["nginx", "-c", os.path.join(work, "nginx.conf")])
        for _ in range(100):
            if run(net.args(["curl", "-s", "-o", "/dev/null", f"{URL}/"]), check=False,
                   timeout=10).returncode == 0:
                break
            time.sleep(0.05)
        yield net
    finally:
        shutil.rmtree(work, ignore_errors=True)
