#!/usr/bin/python3
"""flowlab's Mininet API: a script killed mid-run (SIGKILL of its python, SIGKILL or SIGTERM
of `flowlab mininet`) leaves nothing behind: its lab's supervisor holds a pidfd of the
script (`lab up --owner`) and takes the lab down when it exits, the processes the script
started in its hosts included. Checked after each kill: the lab's namespaces, its record,
its switch and controller processes, the processes that ran in its hosts and its
interfaces are gone.

Run by ctest (label lab) as: test_api_killed.py FLOWLAB_BINARY; needs root (exit 77: skipped).
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
API = os.path.join(HERE, '..', '..', 'python', 'mininet_api')

# The script: a network of OVS and flowlab switches under the reference controller, a
# process left running in each host (a shell's background job, a popen), its lab's id
# and those pids printed; then it waits to be killed.
SCRIPT = r'''
import os, sys, time
from mininet.net import Mininet
from mininet.topo import LinearTopo
from mininet.node import OVSSwitch, Controller
net = Mininet(topo=LinearTopo(2), switch=OVSSwitch, controller=Controller)
net.start()
h1, h2 = net.get('h1', 'h2')
h1.cmd('sleep 600 & echo $! > /tmp/%(tag)s-h1.pid')
p = h2.popen('sleep 600')
print('READY', net.labId, open('/tmp/%(tag)s-h1.pid').read().strip(), p.pid, os.getpid(), flush=True)
time.sleep(600)
'''


def namespaces():
    out = subprocess.run(['ip', 'netns', 'list'], stdout=subprocess.PIPE, text=True).stdout
    return set(line.split()[0] for line in out.splitlines() if line.strip())


def netns_inode(name):
    try:
        return os.stat('/run/netns/' + name).st_ino
    except OSError:
        return None


def pids_in(inodes):
    """The processes whose network namespace is one of `inodes`."""
    out = []
    for d in os.listdir('/proc'):
        if d.isdigit():
            try:
                if os.stat('/proc/%s/ns/net' % d).st_ino in inodes:
                    out.append(int(d))
            except OSError:
                pass
    return out


def alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] not in ('Z', 'X')
    except OSError:
        return False


class Killed(unittest.TestCase):
    def setUp(self):
        self.state = tempfile.mkdtemp(prefix='flowlab-killed-')  # this test's labs only
        self.tag = 'flowlab-killed-%d' % os.getpid()
        self.script = os.path.join(self.state, 'script.py')
        with open(self.script, 'w') as f:
            f.write(SCRIPT % {'tag': self.tag})
        self.proc = None

    def tearDown(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        # whatever a failure left: the labs of this state folder only
        env = dict(os.environ, FLOWLAB_STATE_DIR=self.state)
        subprocess.run([os.environ['FLOWLAB_BIN'], 'lab', 'clean', '--force'], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.state, ignore_errors=True)
        try:
            os.unlink('/tmp/%s-h1.pid' % self.tag)
        except OSError:
            pass

    def run_and_kill(self, argv, sig):
        env = dict(os.environ, FLOWLAB_STATE_DIR=self.state, PYTHONPATH=API)
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        line = self.proc.stdout.readline()
        words = line.split()
        if not words or words[0] != 'READY':
            self.proc.kill()
            self.fail('the script did not come up: %r %s' % (line, self.proc.stderr.read()[-2000:]))
        lab_id, sleeper1, sleeper2, script_pid = words[1], int(words[2]), int(words[3]), int(words[4])
        self.assertEqual(script_pid, self.proc.pid)  # flowlab mininet is the script's python (exec)
        with open(os.path.join(self.state, lab_id, 'lab.json')) as f:
            record = json.load(f)
        with open(os.path.join(self.state, lab_id, 'state.json')) as f:
            lab_pids = [p['pid'] for p in json.load(f).get('processes', [])] + [record['pid']]
        ours = set(n for n in namespaces() if n.startswith('fl%s-' % lab_id))
        self.assertEqual(set(record['hosts'].values()) - ours, set())
        inodes = set(filter(None, (netns_inode(n) for n in ours)))
        self.assertTrue(inodes)
        deadline = time.time() + 10  # the popen'd one enters its namespace as it starts (ip netns exec)
        while not set((sleeper1, sleeper2)) <= set(pids_in(inodes)) and time.time() < deadline:
            time.sleep(0.05)
        in_hosts = pids_in(inodes)
        for pid in (sleeper1, sleeper2):
            self.assertIn(pid, in_hosts)
        self.assertTrue(all(alive(p) for p in lab_pids))
        core = record['core_ns']
        ifaces = subprocess.run(['ip', '-n', core, '-o', 'link', 'show'], stdout=subprocess.PIPE,
                                text=True).stdout
        self.assertIn('s1-eth1', ifaces)

        os.kill(self.proc.pid, sig)
        self.proc.wait(timeout=30)
        left = None
        deadline = time.time() + 60
        while time.time() < deadline:
            left = {
                'namespaces': sorted(n for n in namespaces() if n.startswith('fl%s-' % lab_id)),
                'record': os.path.exists(os.path.join(self.state, lab_id)),
                'lab processes': [p for p in lab_pids if alive(p)],
                'processes in its hosts': pids_in(inodes),
                'sleepers': [p for p in (sleeper1, sleeper2) if alive(p)],
            }
            if not any(left.values()):
                break
            time.sleep(0.2)
        self.assertFalse(any(left.values()), 'lab %s left %s after signal %d' % (lab_id, left, sig))
        # its interfaces: gone with its namespaces (none moved to the machine's)
        links = subprocess.run(['ip', '-o', 'link', 'show'], stdout=subprocess.PIPE, text=True).stdout
        self.assertNotIn('s1-eth1', links)
        self.assertNotIn('h1-eth0', links)

    def test_sigkill_of_the_scripts_python(self):
        self.run_and_kill(['/usr/bin/python3', self.script], signal.SIGKILL)

    def test_sigkill_of_flowlab_mininet(self):
        self.run_and_kill([os.environ['FLOWLAB_BIN'], 'mininet', self.script], signal.SIGKILL)

    def test_sigterm_of_flowlab_mininet(self):
        self.run_and_kill([os.environ['FLOWLAB_BIN'], 'mininet', self.script], signal.SIGTERM)


if __name__ == '__main__':
    if os.geteuid() != 0:
        print('test_api_killed: needs root (skipped)')
        sys.exit(77)
    if len(sys.argv) > 1:
        os.environ['FLOWLAB_BIN'] = os.path.abspath(sys.argv.pop(1))
    unittest.main()
