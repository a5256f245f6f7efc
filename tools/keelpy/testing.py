"""keel test: host build + ctest, bounded fuzz runs, then the pytest suites."""
import glob
import os
import subprocess

from .paths import DEBIAN_PYTHON, HOST_BUILD, ROOT

PYTEST_DIRS = ["test/integration", "test/net", "test/firewall"]
FUZZ_SECONDS = os.environ.get("KEEL_FUZZ_SECONDS", "20")


def step(title, args, tail=None):
    """Runs one step; with `tail`, shows only that many last lines of its output
    (more when it fails), for chatty steps such as fuzzing."""
    print(f"\n=== keel test: {title}\n$ {' '.join(args)}", flush=True)
    if tail is None:
        return subprocess.run(args, cwd=ROOT).returncode == 0
    result = subprocess.run(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, errors="replace")
    lines = result.stdout.splitlines()
    shown = lines[-(tail if result.returncode == 0 else 10 * tail):]
    if len(shown) < len(lines):
        print(f"[... {len(lines) - len(shown)} lines left out ...]")
    print("\n".join(shown), flush=True)
    return result.returncode == 0


def run_all(pytest_args=(), unit=True, integration=True):
    results = {}
    if unit:
        results["host build"] = (
            step("configure host build", ["cmake", "-S", ROOT, "-B", HOST_BUILD, "-G", "Ninja",
                                          "-DCMAKE_BUILD_TYPE=RelWithDebInfo"])
            and step("build host", ["cmake", "--build", HOST_BUILD, "-j", "2"]))
        if results["host build"]:
            results["unit tests"] = step("unit tests (ctest)", [
                "ctest", "--test-dir", HOST_BUILD, "--output-on-failure", "-j", "2"])
        for script in sorted(glob.glob(os.path.join(ROOT, "test", "fuzz", "run_*.sh"))):
            name = os.path.basename(script)
            results[f"fuzz {name}"] = step(f"fuzz smoke run ({name}, {FUZZ_SECONDS} s per target)",
                                           ["bash", script, FUZZ_SECONDS], tail=15)
    if integration:
        dirs = [d for d in PYTEST_DIRS if glob.glob(os.path.join(ROOT, d, "test_*.py"))]
        results["pytest"] = step("integration tests (pytest)", [
            DEBIAN_PYTHON, "-m", "pytest", "-v", "-rs", *dirs, *pytest_args])
        results["bench quick"] = step("benchmarks, quick (they run and write their files; "
                                      "timings not checked)",
                                      [os.path.join(ROOT, "tools", "keel"), "bench", "--quick"],
                                      tail=25)
    failed = [name for name, ok in results.items() if not ok]
    print("\n=== keel test summary: " + ", ".join(
        f"{name} {'ok' if ok else 'FAILED'}" for name, ok in results.items()), flush=True)
    return 1 if failed else 0
