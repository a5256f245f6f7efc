"""`tools/keel` as a long-running command (boot, run) in the background: its output
collected in a file, waited on for a pattern, stopped and reaped however a test ends."""
import os
import re
import signal
import subprocess
import tempfile
import time

from conftest import KEEL


def default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class KeelProcess:
    def __init__(self, args, prefix=(), user=None):
        """Starts `prefix + [keel, *args]` (prefix: `ip netns exec NS`, say) in its own
        session, as a terminal would start a foreground job; `user`: run it as that user."""
        self.log = tempfile.NamedTemporaryFile(prefix="keel-cli-", suffix=".log", delete=False)
        command = [*prefix, KEEL, *args]
        if user is not None:
            command = ["runuser", "-u", user, "--", *command]
        # A foreground job takes Ctrl-C even when the test run itself was started with SIGINT
        # ignored (a shell's `cmd &` without job control does that, and children inherit it).
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self.log,
                                        stderr=subprocess.STDOUT, start_new_session=True,
                                        preexec_fn=default_sigint)

    def output(self):
        with open(self.log.name, errors="replace") as f:
            return f.read()

    def wait_for(self, pattern, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.output()
            if re.search(pattern, text):
                return text
            if self.process.poll() is not None:
                raise AssertionError(f"keel exited ({self.process.returncode}):\n{text}")
            time.sleep(0.05)
        raise AssertionError(f"no '{pattern}' within {timeout} s:\n{self.output()}")

    def descendants(self):
        """Pids of every process below the one started (runuser, keel, QEMU)."""
        found, todo = [], [self.process.pid]
        while todo:
            pid = todo.pop()
            try:
                with open(f"/proc/{pid}/task/{pid}/children") as f:
                    children = [int(p) for p in f.read().split()]
            except FileNotFoundError:
                continue
            found += children
            todo += children
        return found

    def qemu(self):
        """The pid of the QEMU keel runs."""
        pids = []
        for pid in self.descendants():
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().startswith("qemu-system"):
                        pids.append(pid)
            except FileNotFoundError:
                pass
        assert len(pids) == 1, f"QEMUs under keel: {pids}"
        return pids[0]

    def signal_group(self, signum):
        """As a terminal sends Ctrl-C: to the whole foreground process group."""
        os.killpg(self.process.pid, signum)

    def wait(self, timeout=30):
        return self.process.wait(timeout=timeout)

    def close(self):
        if self.process.poll() is None:
            # keel starts the guest in a session of its own: kill every one.
            for pid in [self.process.pid, *self.descendants()]:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.process.wait(timeout=30)
        self.log.close()
        os.unlink(self.log.name)
