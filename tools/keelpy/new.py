"""`keel new NAME [--template hello|udp|tcp]`: a service folder that builds and boots at once,
from tools/templates/ (common/ for every template, then the template's own files). Templates
write @NAME@, @KEEL@ (this keel, for the test), @TEMPLATE@, @TRY@ and @LINUX@ (README
lines) where the values go; the C++ holds no placeholder where clang-format would see one."""
import os
import re
import shutil

from .paths import KeelError, ROOT

TEMPLATES_DIR = os.path.join(ROOT, "tools", "templates")
TEMPLATES = ("hello", "udp", "tcp")  # dns, firewall and web are to come (issue 21)
# How to try each one; the README's @TRY@.
TRY = {
    "hello": "keel boot .            # prints its line and exits with status 0",
    "udp": "keel run . -p 7000:7000/udp   # then: echo hi | nc -u -w1 127.0.0.1 7000",
    "tcp": "keel run . -p 7000:7000       # then: echo hi | nc -N 127.0.0.1 7000",
}
LINUX = {
    "hello": "keel boot . --platform linux   # the same service as a Linux process",
    "udp": "keel boot . --platform linux --tap TAP --append ip=10.0.0.2/24   # a Linux "
           "process on a TAP (root)",
}
LINUX["tcp"] = LINUX["udp"]
# A CMake target and a C identifier-ish word: it names the image and prefixes its output.
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
KEEL = os.path.join(ROOT, "tools", "keel")


def files_of(template):
    """(relative path, source path) of every file the template writes."""
    if template not in TEMPLATES:
        raise KeelError(f"no template '{template}' (choose from {', '.join(TEMPLATES)})")
    files = {}
    for folder in ("common", template):
        base = os.path.join(TEMPLATES_DIR, folder)
        for name in sorted(os.listdir(base)):
            files[name] = os.path.join(base, name)  # the template's own file wins
    return sorted(files.items())


def create(path, template="hello"):
    """Writes the service folder `path` (its last part is the service's name); returns it."""
    path = os.path.abspath(path)
    name = os.path.basename(path)
    if not NAME.fullmatch(name):
        raise KeelError(f"'{name}' cannot name a service: use letters, digits and _, "
                        "starting with a letter (it names the image and its target)")
    if os.path.exists(path) and os.listdir(path):
        raise KeelError(f"{path} exists and is not empty: keel new writes a new folder")
    values = {"@NAME@": name, "@KEEL@": KEEL,
              "@TEMPLATE@": template, "@TRY@": TRY[template],
              "@LINUX@": LINUX[template]}
    os.makedirs(path, exist_ok=True)
    for relative, source in files_of(template):
        with open(source) as f:
            text = f.read()
        for key, value in values.items():
            text = text.replace(key, value)
        with open(os.path.join(path, relative), "w") as f:
            f.write(text)
        shutil.copymode(source, os.path.join(path, relative))
    return path
