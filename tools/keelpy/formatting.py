"""keel format: clang-format (the committed .clang-format) over every C and
C++ file git tracks or would track (new files not yet added, ignored ones left out); --check
only reports, for CI."""
import shutil
import subprocess

from .paths import ROOT, KeelError

SUFFIXES = ("*.cpp", "*.hpp", "*.c", "*.h")


def clang_format():
    for name in ("clang-format", "clang-format-14"):
        if shutil.which(name):
            return name
    raise KeelError("clang-format not found: apt-get install clang-format (or tools/keel setup --tests)")


def run(check=False):
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", *SUFFIXES], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    args = [clang_format(), "--dry-run", "-Werror"] if check else [clang_format(), "-i"]
    result = subprocess.run(args + files, cwd=ROOT, capture_output=True, text=True)
    if check:
        badly = sorted({line.split(":")[0] for line in result.stderr.splitlines()
                        if ": error: code should be clang-formatted" in line})
        for path in badly:
            print(f"keel: not formatted: {path}")
        print(f"keel: {len(files) - len(badly)} of {len(files)} files formatted as .clang-format says")
        return 1 if badly else 0
    if result.returncode != 0:
        raise KeelError(result.stderr.strip())
    print(f"keel: formatted {len(files)} files")
    return 0
