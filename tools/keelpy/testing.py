"""keel test: the format check, the host build (tools, the Linux platform), the unit tests
built and run under the sanitizers, bounded fuzz runs, then the pytest suites and the quick
benchmarks. --quick: only the incremental host build and the unit tests, unsanitized."""
import glob
import os
import shutil
import subprocess
import threading
import time

from . import compdb
from .paths import DEBIAN_PYTHON, HOST_BUILD, ROOT

PYTEST_DIRS = ["test/integration", "test/net", "test/firewall", "test/dns", "test/http"]
FUZZ_SECONDS = os.environ.get("KEEL_FUZZ_SECONDS", "10")
ASAN_BUILD = os.path.join(ROOT, "build", "asan")


def werror():
    """CI (.ci/run) sets KEEL_WERROR=1: every warning fails the build."""
    return os.environ.get("KEEL_WERROR") == "1"


def use_compiler_cache():
    """One run builds the same sources in several trees (each DNS service compiles the host
    zone compiler, tests and benchmarks build the same examples again): with ccache installed
    and no launcher chosen by the caller, every CMake tree configured below compiles through
    it, the build directory kept out of the hash so trees share objects (decision 0122)."""
    if shutil.which("ccache") is None or any(
            v in os.environ for v in ("CMAKE_C_COMPILER_LAUNCHER", "CMAKE_CXX_COMPILER_LAUNCHER")):
        return False
    os.environ.update(CMAKE_C_COMPILER_LAUNCHER="ccache", CMAKE_CXX_COMPILER_LAUNCHER="ccache",
                      CCACHE_NOHASHDIR="1")
    return True


def step(title, args, tail=None):
    """Runs one step; with `tail`, shows only that many last lines of its output
    (more when it fails), for chatty steps such as fuzzing."""
    print(f"\n=== keel test: {title}\n$ {' '.join(args)}", flush=True)
    if tail is None:
        started = time.monotonic()
        ok = subprocess.run(args, cwd=ROOT).returncode == 0
        print(f"=== ({title}: {time.monotonic() - started:.0f} s)", flush=True)
        return ok
    ok, output, seconds = run_captured(args)
    show_tail(title, ok, output, seconds, tail)
    return ok


def run_captured(args, env=None):
    """(ok, output, seconds) of one command, its output captured."""
    started = time.monotonic()
    result = subprocess.run(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, errors="replace", env=env)
    return result.returncode == 0, result.stdout, time.monotonic() - started


def show_tail(title, ok, output, seconds, tail):
    lines = output.splitlines()
    shown = lines[-(tail if ok else 10 * tail):]
    if len(shown) < len(lines):
        print(f"[... {len(lines) - len(shown)} lines left out ...]")
    print("\n".join(shown), flush=True)
    print(f"=== ({title}: {seconds:.0f} s)", flush=True)


def fuzz_scripts():
    return sorted(glob.glob(os.path.join(ROOT, "test", "fuzz", "run_*.sh")))


def fuzz_title(script):
    return f"fuzz smoke run ({os.path.basename(script)}, {FUZZ_SECONDS} s per target)"


class FuzzInBackground:
    """The fuzz smoke runs at nice 19 while the pytest suites and the quick benchmarks run:
    fuzzing is single-threaded and those phases leave about one core idle (decision 0121).
    At nice 19 a fuzzer may wait for the CPU, so an input counts as hung only after
    BACKGROUND_FUZZ_TIMEOUT seconds of wall time instead of 10."""

    BACKGROUND_FUZZ_TIMEOUT = "120"

    def __init__(self):
        self.done = []
        self.finished = None
        self.env = dict(os.environ, KEEL_FUZZ_TIMEOUT=self.BACKGROUND_FUZZ_TIMEOUT)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.started = time.monotonic()
        print(f"\n=== keel test: {len(fuzz_scripts())} fuzz smoke runs start in the background "
              "(nice 19); their output follows the benchmarks", flush=True)
        self.thread.start()

    def _run(self):
        for script in fuzz_scripts():
            self.done.append((script, *run_captured(["nice", "-n", "19", "bash", script, FUZZ_SECONDS],
                                                    env=self.env)))
        self.finished = time.monotonic()

    def results(self):
        """Waits for the runs; prints each one's tail; {name: ok}."""
        waited = time.monotonic()
        self.thread.join()
        print(f"\n=== keel test: the background fuzz runs ended "
              f"{self.finished - self.started:.0f} s after they started; the run waited "
              f"{time.monotonic() - waited:.0f} s for them", flush=True)
        results = {}
        for script, ok, output, seconds in self.done:
            print(f"\n=== keel test: {fuzz_title(script)}, in the background", flush=True)
            show_tail(fuzz_title(script), ok, output, seconds, 15)
            results[f"fuzz {os.path.basename(script)}"] = ok
        return results


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
    cached = use_compiler_cache()
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
            if not integration:
                for script in fuzz_scripts():
                    results[f"fuzz {os.path.basename(script)}"] = step(
                        fuzz_title(script), ["bash", script, FUZZ_SECONDS], tail=15)
    if integration and not unit and not quick:
        # --integration-only: the quick benchmarks run host tools (dns_answer_bench, the
        # firewall's), which the unit step would otherwise have built.
        results.update(build_and_test("host", HOST_BUILD, [
            "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DKEEL_UNIT_TESTS_IN_ALL=OFF"], unit_tests=False))
    fuzzing = FuzzInBackground() if unit and integration and not quick else None
    if integration and not quick:
        dirs = [d for d in PYTEST_DIRS if glob.glob(os.path.join(ROOT, d, "test_*.py"))]
        results["pytest"] = step("integration tests (pytest)", [
            DEBIAN_PYTHON, "-m", "pytest", "-v", "-rs", "--durations=30", *dirs, *pytest_args])
        if pytest_args:
            # A chosen subset of the tests (`-- -k X`): the benchmarks are not part of it.
            print("keel: pytest arguments given: the quick benchmarks are not run", flush=True)
        else:
            results["bench quick"] = step("benchmarks, quick (they run and write their files; "
                                          "timings not checked)",
                                          [os.path.join(ROOT, "tools", "keel"), "bench", "--quick"],
                                          tail=25)
    if fuzzing:
        results.update(fuzzing.results())
    print(f"\nkeel: compile_commands.json with {compdb.write()} entries (host and OS builds)")
    if cached:
        subprocess.run(["ccache", "--show-stats"])
    failed = [name for name, ok in results.items() if not ok]
    print("\n=== keel test summary: " + ", ".join(
        f"{name} {'ok' if ok else 'FAILED'}" for name, ok in results.items()), flush=True)
    return 1 if failed else 0
