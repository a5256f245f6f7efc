"""Where things are in a Keel checkout."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
CMAKE_DIR = os.path.join(ROOT, "cmake")
HOST_BUILD = os.environ.get("KEEL_HOST_BUILD", os.path.join(ROOT, "build", "host"))
DEBIAN_PYTHON = "/usr/bin/python3"


class KeelError(Exception):
    """An error the user can act on; printed without a traceback."""
