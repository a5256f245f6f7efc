"""keel test: the format check, the host build (tools, the Linux platform), the unit tests
built and run under the sanitizers, bounded fuzz runs, then the pytest suites and the quick
benchmarks. --quick: only the incremental host build and the unit tests, unsanitized."""
import glob
import os
import subprocess
import time

from . import compdb
from .paths import DEBIAN_PYTHON, HOST_BUILD, ROOT

PYTEST_DIRS = ["test/integration", "test/net", "test/firewall", "test/dns", "test/http"]
FUZZ_SECONDS = os.environ.get("KEEL_FUZZ_SECONDS", "10")
ASAN_BUILD = os.path.join(ROOT, "build", "asan")


def werror():
    """CI (.ci/run) sets KEEL_WERROR=1: every warning fails the build."""
    return os.environ.get("KEEL_WERROR") == "1"


def step(title, args, tail=None):
    """Runs one step; with `tail`, shows only that many last lines of its output
    (more when it fails), for chatty steps such as fuzzing."""
    print(f"\n=== keel test: {title}\n$ {' '.join(args)}", flush=True)
    started = time.monotonic()
    if tail is None:
        ok = subprocess.run(args, cwd=ROOT).returncode == 0
    else:
        result = subprocess.run(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace")
        lines = result.stdout.splitlines()
        shown = lines[-(tail if result.returncode == 0 else 10 * tail):]
        if len(shown) < len(lines):
            print(f"[... {len(lines) - len(shown)} lines left out ...]")
        print("\n".join(shown), flush=True)
        ok = result.returncode == 0
    print(f"=== ({title}: {time.monotonic() - started:.0f} s)", flush=True)
    return ok


def build_and_test(name, build_dir, options, targets=(), unit_tests=True):
    """Configures, builds (`targets`, or everything) and runs ctest in one tree (unless
    `unit_tests` is off: the tree's tools only)."""
    configure = ["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja",
                 f"-DKEEL_WERROR={'ON' if werror() else 'OFF'}", *options]
    build = ["cmake", "--build", build_dir, "-j", "2"] + (["--target", *targets] if targets else [])
    if not (step(f"configure {name}", configure, tail=5) and step(f"build {name}", build, tail=40)):
        return {f"{name} build": False}
    if not unit_tests:
        return {f"{name} build": True}
    ok = step(f"unit tests, {name} (ctest)",
              ["ctest", "--test-dir", build_dir, "--output-on-failure", "-j", "2"], tail=25)
    return {f"{name} build": True, f"{name} unit tests": ok}


def run_all(pytest_args=(), unit=True, integration=True, quick=False):
    results = {}
    if unit and not quick:
        results["format"] = step("format check (clang-format, the committed .clang-format)",
                                 [os.path.join(ROOT, "tools", "keel"), "format", "--check"], tail=20)
    if unit:
        # The full run builds the unit tests once, with the sanitizers; --quick builds them
        # here, unsanitized and fast to rebuild (decision 0120).
        results.update(build_and_test("host", HOST_BUILD, [
            "-DCMAKE_BUILD_TYPE=RelWithDebInfo", f"-DKEEL_UNIT_TESTS_IN_ALL={'ON' if quick else 'OFF'}"],
            unit_tests=quick))
        if not quick:
            results.update(build_and_test("asan+ubsan", ASAN_BUILD,
                                          ["-DCMAKE_BUILD_TYPE=Debug", "-DKEEL_SANITIZE=ON"],
                                          targets=["unit_tests"]))
            for script in sorted(glob.glob(os.path.join(ROOT, "test", "fuzz", "run_*.sh"))):
                name = os.path.basename(script)
                results[f"fuzz {name}"] = step(
                    f"fuzz smoke run ({name}, {FUZZ_SECONDS} s per target)",
                    ["bash", script, FUZZ_SECONDS], tail=15)
    if integration and not quick:
        dirs = [d for d in PYTEST_DIRS if glob.glob(os.path.join(ROOT, d, "test_*.py"))]
        results["pytest"] = step("integration tests (pytest)", [
            DEBIAN_PYTHON, "-m", "pytest", "-v", "-rs", "--durations=30", *dirs, *pytest_args])
        results["bench quick"] = step("benchmarks, quick (they run and write their files; "
                                      "timings not checked)",
                                      [os.path.join(ROOT, "tools", "keel"), "bench", "--quick"],
                                      tail=25)
    print(f"\nkeel: compile_commands.json with {compdb.write()} entries (host and OS builds)")
    failed = [name for name, ok in results.items() if not ok]
    print("\n=== keel test summary: " + ", ".join(
        f"{name} {'ok' if ok else 'FAILED'}" for name, ok in results.items()), flush=True)
    return 1 if failed else 0
