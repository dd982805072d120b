"""Where an example's time goes (run_examples.py --phases): imported by each Python process
of a test as its `sitecustomize`, it wraps what Mininet's API does (flowlab's or Debian's
Mininet, whichever `mininet` is found) and appends one line per top-level call to
$FLOWLAB_PHASES_LOG: `PID SCRIPT PHASE SECONDS`.

Phases: up (Mininet.build and start: the network made and started), down (Mininet.stop),
tests (pingAll and the other ping calls, iperf), cmd (a node's cmd, popen/pexec not
included), sleep (time.sleep). A call inside another timed call is not counted again.
"""
import os
import sys
import threading
import time

_LOG = os.environ.get('FLOWLAB_PHASES_LOG')
_depth = threading.local()
_sleep = time.sleep


def _record(phase, seconds):
    script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else '-'
    try:
        with open(_LOG, 'a') as f:
            f.write('%d %s %s %.6f\n' % (os.getpid(), script, phase, seconds))
    except OSError:
        pass


def _timed(phase, fn):
    def wrapper(*args, **kwargs):
        if getattr(_depth, 'n', 0):
            return fn(*args, **kwargs)
        _depth.n = 1
        t0 = time.monotonic()
        try:
            return fn(*args, **kwargs)
        finally:
            _depth.n = 0
            _record(phase, time.monotonic() - t0)
    wrapper.__wrapped__ = fn
    return wrapper


def _install():
    time.sleep = _timed('sleep', _sleep)
    try:
        import mininet.net as net
        import mininet.node as node
    except Exception:  # not a Mininet process, or Mininet cannot be imported here
        return
    cls = net.Mininet
    for name, phase in (('build', 'up'), ('start', 'up'), ('stop', 'down'), ('ping', 'tests'),
                        ('pingAll', 'tests'), ('pingFull', 'tests'), ('pingPair', 'tests'),
                        ('pingAllFull', 'tests'), ('pingPairFull', 'tests'), ('iperf', 'tests')):
        if hasattr(cls, name):
            setattr(cls, name, _timed(phase, getattr(cls, name)))
    base = getattr(node, 'Node', None)
    if base is not None and hasattr(base, 'cmd'):
        base.cmd = _timed('cmd', base.cmd)


if _LOG:
    _install()
