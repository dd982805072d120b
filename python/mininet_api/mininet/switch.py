"""mininet.node's switches (Mininet's names, re-exported there): each maps to a switch of
the flowlab lab, started and stopped through the lab's control socket once it is up."""
import os
import re

from mininet.link import Intf
from mininet.basenode import Node


class Switch(Node):
    """A switch of the lab. Its ports are numbered from 1 as Mininet's; cmd() runs in the lab's
    core namespace, where its ports are."""

    portBase = 1
    dpidLen = 16
    standalone = False  # a switch is the lab's: no namespace of its own outside a network
    lab_kind = 'flowlab'

    def __init__(self, name, dpid=None, opts='', listenPort=None, **params):
        Node.__init__(self, name, **params)
        self.dpid = self.defaultDpid(dpid)
        self.opts = opts
        self.listenPort = listenPort
        # Mininet's switches are in the machine's namespace and list its loopback as port 0;
        # here it is the loopback of the lab's core namespace, where the switches are.
        self.controlIntf = Intf('lo', self, port=0)
        self.controlIntf.ip, self.controlIntf.prefixLen = '127.0.0.1', 8
        self.controllers = None  # the ones start() named before the lab came up; None: every one of the net

    def defaultDpid(self, dpid=None):
        if dpid:
            dpid = str(dpid).replace(':', '')
            if dpid.startswith('0x'):
                dpid = dpid[2:]
        else:
            nums = re.findall(r'\d+', self.name)
            if not nums:
                raise Exception('Unable to derive default datapath ID - please either specify a dpid or use a '
                                'canonical switch name such as s23.')
            dpid = hex(int(nums[0]))[2:]
        return '0' * (self.dpidLen - len(dpid)) + dpid

    def lab_spec(self):
        return {'kind': self.lab_kind}

    def _spawn_options(self):
        """ovs-vsctl and ovs-ofctl in the switch's shell reach the lab's Open vSwitch (its own
        database and sockets), as in Mininet they reach the machine's."""
        rundir = self.net.lab.record.get('ovs_rundir') if self.net is not None and self.net.lab else None
        return {'env': dict(os.environ, OVS_RUNDIR=rundir)} if rundir else {}

    def start(self, controllers):
        """Before the lab is up: the controllers this switch connects to when the lab starts it
        (net.start() calls it with every controller of the net, as Mininet's; a subclass or the
        script may name others). In a running lab: starts the stopped switch again."""
        if self.ns:
            self.net.lab.control({'op': 'switch', 'name': self.name, 'start': True})
        else:
            self.controllers = list(controllers)

    def stop(self, deleteIntfs=True):
        """Stops the switch's process in a running lab (its ports stay: deleteIntfs is not honoured)."""
        if self.ns:
            self.net.lab.control({'op': 'switch', 'name': self.name, 'start': False})
        else:
            self.terminate()

    def dpctl(self, *args):
        """ovs-ofctl syntax on this switch (flowlab's ofctl for flowlab switches, ovs-ofctl for OVS)."""
        self._started()
        return self.net.lab.control({'op': 'dpctl', 'args': [str(a) for a in args], 'switch': self.name})

    def connected(self):
        return self.ns is not None


class FlowlabSwitch(Switch):
    """flowlab's own OpenFlow switch (eBPF fast path)."""
    lab_kind = 'flowlab'


class UserSwitch(FlowlabSwitch):
    """Mininet's user-space switch (the reference ofdatapath + ofprotocol): flowlab's switch,
    talking to its controllers as ofprotocol does: one at a time, in order, the next when the
    connection to the current one fails or dies (`--controller-failover`), its connection
    events in /tmp/NAME-ofp.log (ofprotocol's log there: "tcp:A:P: connected"). ofprotocol's
    `opts` that map: --inactivity-probe=S (the switch's echo interval: dead after 3 unanswered,
    where ofprotocol waits one more probe interval) and --max-backoff=S (its reconnect cap)."""

    OPTS = {'--inactivity-probe': '--echo-interval', '--max-backoff': '--reconnect-max'}

    def __init__(self, name, dpopts='--no-slicing', **kwargs):
        FlowlabSwitch.__init__(self, name, **kwargs)
        if dpopts.split() not in ([], ['--no-slicing']):  # flowlab's switch has no queue slicing
            raise NotImplementedError('UserSwitch(%s, dpopts=%r): ofdatapath\'s options other than '
                                      '--no-slicing have no flowlab equivalent' % (name, dpopts))
        self.switchArgs = self._switch_args(self.opts)
        self.ofpLog = '/tmp/%s-ofp.log' % self.name

    @classmethod
    def _switch_args(cls, opts):
        words = str(opts or '').split()
        args = []
        i = 0
        while i < len(words):
            key, eq, value = words[i].partition('=')
            if key not in cls.OPTS:
                raise NotImplementedError('UserSwitch(opts=%r): %s: flowlab\'s switch takes ofprotocol\'s %s '
                                          'alone' % (opts, words[i], ', '.join(sorted(cls.OPTS))))
            if not eq:
                i += 1
                if i == len(words):
                    raise ValueError('UserSwitch(opts=%r): %s needs a value' % (opts, key))
                value = words[i]
            try:
                seconds = float(value)
            except ValueError:
                raise ValueError('UserSwitch(opts=%r): %s=%s: a number of seconds' % (opts, key, value))
            args += [cls.OPTS[key], '%g' % seconds]
            i += 1
        return args

    def lab_spec(self):
        return {'kind': 'flowlab', 'args': self.switchArgs + ['--connection-log', self.ofpLog]}


class OVSSwitch(Switch):
    """Open vSwitch: its user-space datapath here (this machine has no openvswitch.ko)."""
    lab_kind = 'ovs'

    def __init__(self, name, failMode='secure', datapath='kernel', inband=False, protocols=None, **params):
        Switch.__init__(self, name, **params)
        if failMode != 'secure':
            raise NotImplementedError('%s: failMode=%s: the lab runs OVS in secure mode with its controller; '
                                      'use OVSBridge or LinuxBridge for a learning bridge' % (name, failMode))
        self.protocols = protocols

    @classmethod
    def isOldOVS(cls):
        """Open vSwitch before 1.10 (Mininet's test of what ofport_request needs)."""
        import subprocess
        out = subprocess.run(['ovs-vsctl', '--version'], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True).stdout
        m = re.search(r'(\d+)\.(\d+)', out)
        return not m or (int(m.group(1)), int(m.group(2))) < (1, 10)

    @classmethod
    def setup(cls):
        """Mininet checks that Open vSwitch is installed."""
        import shutil
        if not shutil.which('ovs-vswitchd') and not os.path.exists('/usr/sbin/ovs-vswitchd'):
            raise Exception('Open vSwitch (ovs-vswitchd) is not installed: apt-get install openvswitch-switch')

    def vsctl(self, *args):
        """ovs-vsctl on the lab's Open vSwitch (the switch's shell reaches it), as Mininet's."""
        return self.cmd('ovs-vsctl', *args)

    def attach(self, intf):
        """Connects an interface of the lab's core namespace to the running switch as a port
        (mobility.py moves a host's link between switches this way)."""
        out = self.vsctl('add-port', self, intf)
        self.cmd('ip link set', intf, 'up')
        return out

    def detach(self, intf):
        """Disconnects a port of the running switch (its interface stays)."""
        return self.vsctl('del-port', self, intf)

    def lab_spec(self):
        spec = {'kind': 'ovs'}
        if self.protocols:
            spec['protocols'] = self.protocols
        return spec


OVSKernelSwitch = OVSSwitch


class LinuxBridge(Switch):
    """The Linux bridge (no controller); stp=True turns on its spanning tree."""
    lab_kind = 'linux-bridge'

    def __init__(self, name, stp=False, prio=None, **kwargs):
        Switch.__init__(self, name, **kwargs)
        self.stp = stp

    def lab_spec(self):
        spec = {'kind': 'linux-bridge'}
        if self.stp:
            spec['stp'] = True
        return spec


class OVSBridge(LinuxBridge):
    """Mininet's OVS in standalone mode, a learning bridge: the Linux bridge here (same forwarding)."""

    def __init__(self, name, stp=False, **kwargs):
        kwargs.pop('failMode', None)
        LinuxBridge.__init__(self, name, stp=stp, **kwargs)


class IVSSwitch(Switch):
    def __init__(self, name, **params):
        raise NotImplementedError('IVSSwitch(%s): Indigo Virtual Switch is not available; use OVSSwitch or '
                                  'FlowlabSwitch' % name)
