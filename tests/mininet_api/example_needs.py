"""What some of Mininet's examples need from the machine that flowlab cannot give, checked
on the machine itself: missing(name) says which of the example's tests cannot run here and why.
Each check looks at the real thing (a VLAN interface made in a scratch namespace, an
empty connection to a real iperf server on loopback), so an example is reported "not
run" only for that reason, and runs again on a machine that has what it needs."""
import os
import select
import shutil
import socket
import subprocess
import time


def _commands(*names):
    """The commands of names that are not on PATH."""
    return [n for n in names if not shutil.which(n)]


def _vlan():
    """vlanhost.py: `vconfig` (Debian's vlan package) and a kernel with 802.1Q interfaces."""
    if _commands('vconfig'):
        return 'vconfig (Debian\'s vlan package: apt-get install vlan)'
    ns = 'flowlab-mnx-vlan-%d' % os.getpid()
    if subprocess.run(['ip', 'netns', 'add', ns], stderr=subprocess.DEVNULL).returncode != 0:
        return None  # no probe: the example says for itself
    try:
        steps = [['ip', '-n', ns, 'link', 'add', 'vq0', 'type', 'veth', 'peer', 'name', 'vq1'],
                 ['ip', '-n', ns, 'link', 'add', 'link', 'vq0', 'name', 'vq0.100', 'type', 'vlan', 'id', '100']]
        for step in steps:
            p = subprocess.run(step, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                return ('a kernel with 802.1Q VLAN interfaces (CONFIG_VLAN_8021Q): `%s` says %s' %
                        (' '.join(step[3:]), p.stdout.strip()))
        return None
    finally:
        subprocess.run(['ip', 'netns', 'del', ns], stderr=subprocess.DEVNULL)


def _openvswitch_module():
    return os.path.isdir('/sys/module/openvswitch')


def _scratchnet():
    """scratchnet.py: Mininet's `controller` and the machine's own Open vSwitch with its
    kernel datapath (`ovs-vsctl add-br dp0` in the machine's namespace)."""
    why = []
    if _commands('controller'):
        why.append('Mininet\'s reference `controller` (not in Debian)')
    if not _openvswitch_module():
        why.append('the openvswitch kernel module (the machine\'s OVS bridge dp0)')
    return ' and '.join(why) or None


def _scratchnetuser():
    """scratchnetuser.py: the OpenFlow 1.0 reference switch (ofdatapath, ofprotocol) and `controller`."""
    missing = _commands('ofdatapath', 'ofprotocol', 'controller')
    if missing:
        return 'the OpenFlow reference switch and controller (%s: not in Debian)' % ', '.join(missing)
    return None


def _iperf_empty_line():
    """cpu.py reads one line of `iperf -yc -s` per waitListening probe (an empty connection)
    before its measurement: True when this iperf prints one."""
    if _commands('iperf'):
        return False
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(['iperf', '-yc', '-s', '-B', '127.0.0.1', '-p', str(port)], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 5
        while time.time() < deadline:
            try:
                socket.create_connection(('127.0.0.1', port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        return bool(select.select([server.stdout], [], [], 2)[0])
    finally:
        server.kill()
        server.wait()


def _cpu():
    if _iperf_empty_line():
        return None
    version = subprocess.run(['iperf', '-v'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True).stdout.strip() if shutil.which('iperf') else 'no iperf'
    return ('an iperf that prints a result for an empty connection: cpu.py reads one per waitListening '
            'probe before its measurement, which %s does not print (the example would wait for ever, '
            'under Mininet too)' % version)


# example -> {its test (a method of its test file's class), or '*' for all: the check}
CHECKS = {
    'vlanhost': {'*': _vlan},
    'scratchnet': {'testPingKernel': _scratchnet, 'testPingUser': _scratchnetuser},
    'cpu': {'*': _cpu},
}


def missing(example):
    """{test name or '*': why it cannot run on this machine} of the example's tests that cannot."""
    out = {}
    for test, check in CHECKS.get(example, {}).items():
        why = check()
        if why:
            out[test] = why
    return out
