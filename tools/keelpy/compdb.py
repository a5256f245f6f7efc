"""One compile_commands.json for editors and clang tools: the host build's
(tests, tools, the stack on the host) and every OS build's (kernel, arch,
drivers, per platform), merged at the top of the checkout."""
import glob
import json
import os

from .paths import HOST_BUILD, ROOT


def write():
    """Merges what exists; returns the number of entries written."""
    sources = [os.path.join(HOST_BUILD, "compile_commands.json")]
    sources += sorted(glob.glob(os.path.join(ROOT, "build", "os", "*", "compile_commands.json")))
    entries, seen = [], set()
    for path in sources:
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            for entry in json.load(f):
                key = (entry["file"], entry.get("output", ""))
                if key not in seen:
                    seen.add(key)
                    entries.append(entry)
    with open(os.path.join(ROOT, "compile_commands.json"), "w") as f:
        json.dump(entries, f, indent=1)
    return len(entries)
