#!/usr/bin/python3
"""Mininet's own example tests (examples/test/test_*.py, pexpect) with the examples
run by `flowlab mininet`: prints pass/FAIL/"not run: needs WHAT" per test and the counts.

    run_examples.py FLOWLAB_BINARY [--only NAME,...] [--skip NAME,...] [--all] [--timeout S] [--mininet]

The tests are Mininet's as installed (Debian's python3-mininet: the tests in
/usr/share/doc/mininet/examples/test, the examples in the mininet.examples package),
never edited. They spawn `python -m mininet.examples.NAME ARGS`; a `python` on the
runner's PATH turns that into `flowlab mininet EXAMPLES/NAME.py ARGS`, and the tests
themselves import flowlab's mininet package (python/mininet_api first on the path).
The examples' labs live in a state folder of the runner's own (FLOWLAB_STATE_DIR): after
each test file, as Mininet's runner.py calls cleanup() after a failure, what a test left
up (pexpect kills an example whose test failed, before it took its lab down) is taken
down by `flowlab lab clean --force` there, and said; other labs of the machine are not
touched, even by a test that calls Mininet's cleanup(). What an example changes on the
machine (linearbandwidth.py: the TCP congestion control, to reno) is put back after
each test file.
Tests of examples that need ssh, X11, a cluster or NAT to the outside are not run unless
--all (listed as not run, with why); nor, even with --all, the
tests of examples whose needs this machine lacks, checked on it (example_needs.py: VLAN
interfaces in the kernel, the openvswitch module, Mininet's reference switch and controller,
an iperf that answers cpu.py's probes), listed as not run with what is missing.
--mininet runs the same tests against Debian's Mininet 2.3.0 itself, to time it side by side
(scripts/bench-mininet.sh --examples): this machine has neither openvswitch.ko nor a reference
controller, so every Open vSwitch and user switch class of Mininet becomes its LinuxBridge and
every controller one that starts nothing, as `mn --switch lxbr --controller none` (MININET_BOOT);
an example that needs more (ovs-vsctl, a controller's failover) fails there. Interfaces a Mininet
run left in the machine's namespace are deleted after each test file (never `mn -c`).
Each test file ends with a line `TIME EXAMPLE SECONDS PASSED/RUN`; with --phases, then a line
`PHASES EXAMPLE up=S down=S tests=S cmd=S sleep=S`: the seconds the example's processes spent
making and starting their networks, stopping them, in pingAll/iperf, in nodes' cmd and in
time.sleep (phase_times.py, each process's sitecustomize).
Exit 0 when every test run passed, 1 otherwise, 77 when not root.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import example_needs

HERE = os.path.dirname(os.path.abspath(__file__))
API = os.path.normpath(os.path.join(HERE, '..', '..', 'python', 'mininet_api'))
TESTS = '/usr/share/doc/mininet/examples/test'
EXAMPLES = '/usr/lib/python3/dist-packages/mininet/examples'

NOT_HERE = {
    'baresshd': 'ssh into a host',
    'sshd': 'ssh into hosts',
    'clusterSanity': 'a cluster of machines over ssh',
    'nat': 'NAT to the outside',
}

# One test file in a child interpreter: its tests' ids and outcomes, one line each.
CHILD = r'''
import sys, unittest
sys.path.insert(0, sys.argv[1])
class Result(unittest.TextTestResult):
    def _say(self, test, what, why=''):
        print('RESULT %s %s %s' % (test.id(), what, why.replace('\n', ' | ')[-600:]), flush=True)
    def addSuccess(self, test):
        super().addSuccess(test); self._say(test, 'pass')
    def addFailure(self, test, err):
        super().addFailure(test, err); self._say(test, 'FAIL', self._exc_info_to_string(err, test))
    def addError(self, test, err):
        super().addError(test, err); self._say(test, 'FAIL', self._exc_info_to_string(err, test))
    def addSkip(self, test, reason):
        super().addSkip(test, reason); self._say(test, 'skip', reason)
# argv[3:]: NAME=WHY, tests not run on this machine ('*': all), reported as such
left_out = dict(a.split('=', 1) for a in sys.argv[3:])
def tests(suite):
    for t in suite:
        yield from (tests(t) if isinstance(t, unittest.TestSuite) else [t])
kept = unittest.TestSuite()
for test in tests(unittest.defaultTestLoader.loadTestsFromName(sys.argv[2])):
    why = left_out.get(test.id().rsplit('.', 1)[-1], left_out.get('*'))
    if why:
        print('RESULT %s notrun %s' % (test.id(), why), flush=True)
    else:
        kept.addTest(test)
unittest.TextTestRunner(resultclass=Result, verbosity=0, stream=sys.stderr).run(kept)
'''

SHIM = '''#!/bin/bash
# `python -m mininet.examples.NAME ARGS` as Mininet's tests spawn it: the example
# run by `flowlab mininet`; any other use of `python` is Debian's python3.
if [ "$1" = -m ] && [[ "$2" == mininet.examples.* ]]; then
  name=${2#mininet.examples.}; shift 2
  exec "$FLOWLAB_BIN" mininet "$FLOWLAB_MININET_EXAMPLES/$name.py" "$@"
fi
exec /usr/bin/python3 "$@"
'''

# Debian's Mininet without openvswitch.ko or a reference controller: `mn --switch lxbr
# --controller none` for scripts, then the example run as `python -m` would.
MININET_BOOT = '''
import runpy, sys
import mininet.net, mininet.node as node
from mininet.nodelib import LinuxBridge
from mininet.node import Controller


class Bridge(LinuxBridge):
    \"\"\"Mininet's Linux bridge in place of its OVS and user switches (their options dropped).\"\"\"
    def __init__(self, name, failMode=None, datapath=None, inband=None, protocols=None, reconnectms=None,
                 stp=False, prio=None, batch=False, **params):
        LinuxBridge.__init__(self, name, stp=stp, prio=prio, **params)
    def dpctl(self, *args):
        return ''
    @classmethod
    def isOldOVS(cls):
        return False


class NoController(Controller):
    \"\"\"A controller that starts nothing (bridges need none).\"\"\"
    def __init__(self, name, *args, **kwargs):
        kwargs = dict((k, v) for k, v in kwargs.items() if k in ('ip', 'port', 'inNamespace'))
        Controller.__init__(self, name, command='true', **kwargs)
    def start(self):
        pass
    def stop(self, *args, **kwargs):
        node.Node.stop(self, deleteIntfs=kwargs.get('deleteIntfs', False))
    def checkListening(self):
        pass


init = mininet.net.Mininet.__init__
init.__defaults__ = tuple(Bridge if d in (node.OVSKernelSwitch, node.OVSSwitch) else
                          NoController if d is node.DefaultController else d for d in init.__defaults__)
for mod in (node, mininet.net):
    for name in ('OVSSwitch', 'OVSKernelSwitch', 'UserSwitch', 'OVSBridge', 'IVSSwitch'):
        if hasattr(mod, name):
            setattr(mod, name, Bridge)
    for name in ('Controller', 'DefaultController', 'OVSController', 'RemoteController', 'Ryu', 'NOX'):
        if hasattr(mod, name):
            setattr(mod, name, NoController)
name = sys.argv[1]
sys.argv = [name] + sys.argv[2:]
runpy.run_module('mininet.examples.' + name, run_name='__main__', alter_sys=True)
'''

MININET_SHIM = '''#!/bin/bash
# `python -m mininet.examples.NAME ARGS` under Debian's Mininet with Linux bridges and no controller.
if [ "$1" = -m ] && [[ "$2" == mininet.examples.* ]]; then
  name=${2#mininet.examples.}; shift 2
  exec /usr/bin/python3 "$MININET_BOOT" "$name" "$@"
fi
exec /usr/bin/python3 "$@"
'''


def root_links():
    """The names of the interfaces of the machine's namespace."""
    out = subprocess.run(['ip', '-o', 'link', 'show'], stdout=subprocess.PIPE, text=True).stdout
    return set(line.split(':')[1].strip().split('@')[0] for line in out.splitlines() if ':' in line)


def delete_mininet_links(before):
    """The interfaces of Mininet's names that appeared in the machine's namespace since `before`
    (what a Mininet run stopped by a failed test left): deleted, never `mn -c`."""
    for name in sorted(root_links() - before):
        if re.match(r'^(cs?\d+|s\d+|\w+-eth\d+)$', name):
            subprocess.run(['ip', 'link', 'del', name], stderr=subprocess.DEVNULL)


def run_file(path, env, timeout, left_out):
    """[(test id, outcome, why)] of one test file, or one FAIL for the file on a timeout.
    left_out: {test name or '*': why} of tests that cannot run on this machine."""
    module = os.path.splitext(os.path.basename(path))[0]
    extra = ['%s=%s' % item for item in left_out.items()]
    p = subprocess.Popen(['/usr/bin/python3', '-c', CHILD, os.path.dirname(path), module] + extra, env=env,
                         cwd=os.path.dirname(path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except BaseException as e:  # a timeout, or the runner itself stopped
        os.killpg(p.pid, signal.SIGTERM)  # the test's pexpect children get SIGHUP: the examples take their labs down
        if not isinstance(e, subprocess.TimeoutExpired):
            p.wait()
            raise
        try:
            out, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
        return [(module, 'FAIL', 'no end within %d s' % timeout)]
    results = []
    for line in out.splitlines():
        if line.startswith('RESULT '):
            parts = line.split(' ', 3)
            results.append((parts[1], parts[2], parts[3] if len(parts) > 3 else ''))
    if not results:
        results.append((module, 'FAIL', 'exit %d: %s' % (p.returncode, err.strip()[-600:])))
    return results


def phase_sums(log):
    """The phases' seconds summed over the example's processes (not the test's own, `-c`),
    and the log emptied for the next test file."""
    sums = dict((k, 0.0) for k in ('up', 'down', 'tests', 'cmd', 'sleep'))
    try:
        with open(log) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 4 and parts[1] != '-c' and parts[2] in sums:
                    sums[parts[2]] += float(parts[3])
        os.unlink(log)
    except OSError:
        pass
    return ' '.join('%s=%.3f' % item for item in sums.items())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('flowlab')
    ap.add_argument('--only', default='', help='example names, comma-separated')
    ap.add_argument('--skip', default='', help='example names not to run, comma-separated')
    ap.add_argument('--all', action='store_true', help='also run the tests of ssh/cluster/NAT examples')
    ap.add_argument('--timeout', type=int, default=600, help='seconds per test file')
    ap.add_argument('--tests', default=TESTS)
    ap.add_argument('--examples', default=EXAMPLES)
    ap.add_argument('--mininet', action='store_true', help='run the tests against Debian\'s Mininet itself')
    ap.add_argument('--phases', action='store_true', help='time the examples\' up, down, tests and sleeps')
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda signum, _frame: sys.exit(128 + signum))
    if os.geteuid() != 0:
        print('run_examples: needs root (skipped)')
        return 77
    for d in (args.tests, args.examples):
        if not os.path.isdir(d):
            print('run_examples: %s is missing (Debian\'s python3-mininet and mininet packages)' % d)
            return 77
    only = [n for n in args.only.split(',') if n]
    skip = [n for n in args.skip.split(',') if n]
    # linearbandwidth.py sets the machine's TCP congestion control (reno): put back after each file
    cc_path = '/proc/sys/net/ipv4/tcp_congestion_control'
    with open(cc_path) as f:
        congestion_control = f.read().strip()
    shim_dir = tempfile.mkdtemp(prefix='flowlab-mnx-')
    links_before = root_links()
    try:
        shim = os.path.join(shim_dir, 'python')
        with open(shim, 'w') as f:
            f.write(MININET_SHIM if args.mininet else SHIM)
        os.chmod(shim, 0o755)
        env = dict(os.environ)
        env['PATH'] = shim_dir + ':' + env.get('PATH', '/usr/sbin:/usr/bin:/sbin:/bin')
        env['PYTHONPATH'] = API
        env.setdefault('FLOWLAB_PYTHON_DIR', os.path.dirname(API))  # `flowlab mininet` puts this tree's API first
        env['FLOWLAB_BIN'] = os.path.abspath(args.flowlab)
        env['FLOWLAB_MININET_EXAMPLES'] = args.examples
        env['FLOWLAB_STATE_DIR'] = os.path.join(shim_dir, 'state')
        os.makedirs(env['FLOWLAB_STATE_DIR'])
        # the API's scenario folders (tempfile) too: a killed example leaves its folder, removed with ours
        env['TMPDIR'] = os.path.join(shim_dir, 'tmp')
        os.makedirs(env['TMPDIR'])
        env.pop('PYTHONHOME', None)
        if args.mininet:
            env.pop('PYTHONPATH')  # the tests import Debian's Mininet
            env['MININET_BOOT'] = os.path.join(shim_dir, 'boot.py')
            with open(env['MININET_BOOT'], 'w') as f:
                f.write(MININET_BOOT)
        if args.phases:
            phases_dir = os.path.join(shim_dir, 'phases')
            os.makedirs(phases_dir)
            shutil.copy(os.path.join(HERE, 'phase_times.py'), os.path.join(phases_dir, 'sitecustomize.py'))
            env['PYTHONPATH'] = ':'.join(p for p in (env.get('PYTHONPATH'), phases_dir) if p)
            env['FLOWLAB_PHASES_LOG'] = os.path.join(shim_dir, 'phases.log')
        counts = {'pass': 0, 'FAIL': 0, 'skip': 0}
        for name in sorted(os.listdir(args.tests)):
            if not (name.startswith('test_') and name.endswith('.py')):
                continue
            example = name[len('test_'):-len('.py')]
            if (only and example not in only) or example in skip:
                continue
            if example in NOT_HERE and not args.all:
                print('%-44s not run: needs %s' % (example, NOT_HERE[example]), flush=True)
                counts['skip'] += 1
                continue
            left_out = example_needs.missing(example)
            start = time.time()
            passed = run = 0
            for test, outcome, why in run_file(os.path.join(args.tests, name), env, args.timeout, left_out):
                short = test.split('.', 1)[-1]
                if outcome == 'notrun':  # what the machine lacks (example_needs.py)
                    counts['skip'] += 1
                    print('%-44s not run: needs %s' % (short, why), flush=True)
                    continue
                counts[outcome] += 1
                run += 1
                passed += outcome == 'pass'
                print('%-44s %-5s %5.1f s  %s' % (short, outcome, time.time() - start, why), flush=True)
            print('TIME %s %.3f %d/%d' % (example, time.time() - start, passed, run), flush=True)
            if args.phases:
                print('PHASES %s %s' % (example, phase_sums(env['FLOWLAB_PHASES_LOG'])), flush=True)
            if args.mininet:
                delete_mininet_links(links_before)
            with open(cc_path) as f:
                if f.read().strip() != congestion_control:
                    with open(cc_path, 'w') as w:
                        w.write(congestion_control)
            left = [d for d in os.listdir(env['FLOWLAB_STATE_DIR'])]
            if left:
                # `lab down` stops each lab's own process too (`clean --force` removes what a lab
                # made but leaves a lab process that is still alive); clean takes what remains
                for lab in left:
                    subprocess.run([env['FLOWLAB_BIN'], 'lab', 'down', lab], env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, timeout=120)
                clean = subprocess.run([env['FLOWLAB_BIN'], 'lab', 'clean', '--force'], env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                print('%-44s       left %d lab(s) up, cleaned: %s' %
                      (example, len(left), ' '.join(sorted(left))), flush=True)
                if clean.returncode != 0:
                    print(clean.stdout, flush=True)
        print('passed %d, failed %d, not run %d' % (counts['pass'], counts['FAIL'], counts['skip']))
        return 0 if counts['FAIL'] == 0 else 1
    finally:
        if args.mininet:
            delete_mininet_links(links_before)
        if os.path.isdir(os.path.join(shim_dir, 'state')) and os.listdir(os.path.join(shim_dir, 'state')):
            subprocess.run([os.path.abspath(args.flowlab), 'lab', 'clean', '--force'],
                           env=dict(os.environ, FLOWLAB_STATE_DIR=os.path.join(shim_dir, 'state')))
        shutil.rmtree(shim_dir, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
