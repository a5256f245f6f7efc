"""Runs the guest (QEMU, or a service's Linux process) in the foreground and makes sure it
ends with keel: on --timeout, on Ctrl-C and on SIGTERM alike. A QEMU left running would keep
its TAP device open (no other guest could attach to it) and its forwarded ports bound."""
import contextlib
import signal
import subprocess
import sys
from collections import namedtuple

TIMED_OUT = 124      # as timeout(1)
INTERRUPTED = 130    # 128 + SIGINT, as a shell reports Ctrl-C
TERMINATED = 143     # 128 + SIGTERM
HUNG_UP = 129        # 128 + SIGHUP: the terminal went away
# The signals that end keel and, through it, the guest. The guest runs in a session of its
# own, so a closing terminal's SIGHUP reaches keel alone, as Ctrl-C does.
STOP_SIGNALS = {signal.SIGTERM: TERMINATED, signal.SIGHUP: HUNG_UP}
GRACE_SECONDS = 5    # for the guest to end on SIGTERM before it is killed


# status: the child's exit status; stopped: None when it ended by itself, else the status
# keel reports because it stopped it (TIMED_OUT, INTERRUPTED or TERMINATED). Kept apart: a
# child's own status may be any number (QEMU's 143 is a guest's code 70).
Outcome = namedtuple("Outcome", "status stopped")


class Stopped(Exception):
    """keel itself got one of STOP_SIGNALS."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _on_stop_signal(signum, frame):
    raise Stopped(signum)


def run(args, timeout=None, on_timeout=None, grace=GRACE_SECONDS):
    """Runs `args` with our stdout until it ends or must be stopped; returns an Outcome
    (on_timeout() is called first when --timeout stops it). `grace`: seconds the child has
    to end on SIGTERM (to tear down what it made) before it is killed."""
    previous = {signum: signal.signal(signum, _on_stop_signal) for signum in STOP_SIGNALS}
    child = None
    try:
        # Its own session: Ctrl-C reaches keel alone, which then stops the guest once
        # and in order, instead of both racing to exit.
        child = subprocess.Popen(args, stdin=subprocess.DEVNULL, start_new_session=True)
        return Outcome(child.wait(timeout=timeout), None)
    except subprocess.TimeoutExpired:
        if on_timeout:
            on_timeout()
        return Outcome(None, TIMED_OUT)
    except KeyboardInterrupt:
        _say("keel: interrupted; stopping the guest")
        return Outcome(None, INTERRUPTED)
    except Stopped as stopped:
        _say(f"keel: got {signal.Signals(stopped.signum).name}; stopping the guest")
        return Outcome(None, STOP_SIGNALS[stopped.signum])
    finally:
        # From here on a second Ctrl-C or SIGTERM must not leave the guest behind.
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)
        original_sigint = signal.signal(signal.SIGINT, signal.SIG_IGN)
        if child is not None:
            stop(child, grace)
        signal.signal(signal.SIGINT, original_sigint)
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def stop_signals_raise():
    """In the block, SIGTERM and SIGHUP raise Stopped, as Ctrl-C raises KeyboardInterrupt: so
    the `finally` of what keel made around the guest (a TAP device) runs on each."""
    previous = {signum: signal.signal(signum, _on_stop_signal) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def signals_held():
    """Ctrl-C, SIGTERM and SIGHUP wait until the block has run (then act): making or removing
    a device must not stop halfway. Children started in the block inherit the mask: start
    none that must be stoppable."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, *STOP_SIGNALS})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _say(message):
    """To stderr, if it is still there (after SIGHUP the terminal may be gone)."""
    try:
        print(message, file=sys.stderr, flush=True)
    except OSError:
        pass


def stop(child, grace=GRACE_SECONDS):
    """SIGTERM (QEMU exits at once and closes its TAP), then SIGKILL if it lingers."""
    if child.poll() is not None:
        return
    child.terminate()
    try:
        child.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
