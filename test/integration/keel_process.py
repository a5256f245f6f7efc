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
        pids = [pid for pid in self.descendants() if self._comm(pid).startswith("qemu-system")]
        assert len(pids) == 1, f"QEMUs under keel: {pids}"
        return pids[0]

    def wait_until_blocked_in_poll(self, command, timeout=30):
        """Waits until the process named `command` below keel sleeps in poll or select three
        samples running, its work done: gdb, say, waiting for the stub's stop reply after a
        `continue`."""
        deadline = time.monotonic() + timeout
        pids = [p for p in self.descendants() if self._comm(p).startswith(command)]
        assert len(pids) == 1, f"{command} under keel: {pids}"
        settled = 0
        while settled < 3:
            assert time.monotonic() < deadline, f"{command} still busy after {timeout} s"
            with open(f"/proc/{pids[0]}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            with open(f"/proc/{pids[0]}/wchan") as f:
                waiting = "poll" in f.read()
            settled = settled + 1 if state == "S" and waiting else 0
            time.sleep(0.02)

    @staticmethod
    def _comm(pid):
        try:
            with open(f"/proc/{pid}/comm") as f:
                return f.read().strip()
        except FileNotFoundError:
            return ""

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
