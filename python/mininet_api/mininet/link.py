"""mininet.link: Intf, Link, TCLink (shaped: bw in Mbit/s, delay, jitter, loss in %,
max_queue_size in packets, as Mininet's tc options), built by the lab at start()."""
import os
import re
import subprocess


class Intf:
    """One end of a link, in its node's namespace (hosts) or the lab's core namespace (switches)."""

    def __init__(self, name, node=None, port=None, link=None, mac=None, **params):
        self.name, self.node, self.link, self.mac = name, node, link, mac
        self.ip, self.prefixLen = None, None
        self.params = params
        # An interface of no link given to a node of a network (hwintf.py's Intf(eth1, node=s1)):
        # one that exists in the machine's namespace, moved into the lab at start (mininet.hwintf).
        self.existing = (link is None and node is not None and name != 'lo' and
                         getattr(node, 'net', None) is not None)
        if self.existing:
            from mininet.hwintf import check_existing
            check_existing(self)
        if params.get('ip'):  # params1/params2={'ip': ...}: the address this interface gets
            self.setIP(params['ip'])
        if node is not None:
            node.addIntf(self, port=port)
        if self.existing and node.ns:  # the network runs already: it joins the node now
            from mininet.hwintf import attach
            attach(node.net, self)

    def _run(self, *args):
        return self.node.cmd(*args)

    def cmd(self, *args, **kwargs):
        """A command in its node's shell, as Mininet's Intf.cmd."""
        return self.node.cmd(*args, **kwargs)

    def IP(self):
        return self.ip

    def MAC(self):
        """The address given, or once the lab is up the one the kernel chose."""
        if self.mac is None and self.node is not None and self.node.ns:
            self.mac = self._run('cat /sys/class/net/%s/address' % self.name).strip() or None
        return self.mac

    def updateIP(self):
        out = self._run('ip -o -4 addr show dev %s' % self.name)
        m = re.search(r'inet (\d+\.\d+\.\d+\.\d+)/(\d+)', out)
        self.ip, self.prefixLen = (m.group(1), int(m.group(2))) if m else (None, None)
        return self.ip

    def isUp(self, setUp=False):
        if setUp:
            self.ifconfig('up')
        return 'UP' in self._run('ip -o link show dev %s' % self.name).split('>')[0]

    def ifconfig(self, *args):
        """`up` and `down` change the carrier through ip(8); anything else is ifconfig's."""
        if len(args) == 1 and args[0] in ('up', 'down'):
            return self._run('ip link set dev %s %s' % (self.name, args[0]))
        return self._run('ifconfig', self.name, *args)

    def setIP(self, ipstr, prefixLen=None):
        if '/' in str(ipstr):
            ipstr, prefixLen = ipstr.split('/')
        self.ip, self.prefixLen = ipstr, int(prefixLen if prefixLen is not None else 8)
        if self.node is not None and self.node.ns:
            return self._run('ip addr flush dev %s && ip addr add %s/%d dev %s' %
                             (self.name, self.ip, self.prefixLen, self.name))
        return ''

    def setMAC(self, macstr):
        self.mac = macstr
        if self.node is not None and self.node.ns:
            return self._run('ip link set dev %s address %s' % (self.name, macstr))
        return ''

    SHAPING = ('bw', 'delay', 'jitter', 'loss', 'max_queue_size')

    def config(self, mac=None, ip=None, ifconfig=None, up=True, **params):
        """Mininet's Intf.config: mac, ip, up; on a running network a TCIntf's shaping keys
        replace the shaping of the direction leaving this interface (the lab's wire, tc)."""
        results = {}
        running = self.node is not None and self.node.ns
        if mac:
            results['mac'] = self.setMAC(mac)
        if ip:
            results['ip'] = self.setIP(ip)
        if ifconfig:
            results['ifconfig'] = self.ifconfig(ifconfig)
        if running and up is False:
            results['up'] = self.ifconfig('down')
        shaping = dict((k, v) for k, v in params.items() if k in self.SHAPING)
        others = sorted(k for k in params if k not in self.SHAPING)
        if running and others:
            raise NotImplementedError('%s.config(%s): not in flowlab\'s Mininet API' % (self.name, ', '.join(others)))
        if running and shaping:
            if not isinstance(self, TCIntf):
                raise ValueError('%s.config(%s): a plain Link is not shaped (use a TCLink), as in Mininet where '
                                 'its Intf ignores them' % (self.name, ', '.join(sorted(shaping))))
            results.update(self._reshape(shaping))
        self.params.update(params)
        return results

    def _reshape(self, shaping):
        """The lab re-shapes the link's direction that leaves this interface: what is not given
        is no longer shaped, as a TCIntf.config that replaces its qdiscs."""
        link = self.link
        ends = [link.intf1, link.intf2]
        names = [self.node.net.endpoint_name(i) for i in ends]
        direction = 'a_to_b' if self is link.intf1 else 'b_to_a'
        shape = {}
        if shaping.get('bw') is not None:
            shape['bw_bps'] = int(float(shaping['bw']) * 1e6)
        for key in ('delay', 'jitter'):
            if shaping.get(key) is not None:
                shape[key + '_ns'] = _duration_ns(shaping[key])
        if shaping.get('loss'):
            shape['loss_pct'] = float(shaping['loss'])
        if shaping.get('max_queue_size') is not None:
            shape['queue'] = int(shaping['max_queue_size'])
        self.node.net.lab.control({'op': 'shape', 'a': names[0], 'b': names[1], direction: shape})
        from mininet.log import info
        info('(%s) ' % ' '.join('%s %s' % (k, shaping[k]) for k in sorted(shaping)))
        return {'tc': shape}

    def delete(self):
        if self.node is not None and self.node.ns and self.node.net is None:  # a node of no network
            return self.node.cmd('ip link del %s' % self.name)
        if self.node is not None and self.node.ns:
            raise NotImplementedError('%s.delete(): flowlab removes interfaces with the lab (net.stop())' % self.name)

    def status(self):
        return 'OK' if self.node is not None and self.name in self.node.nameToIntf else 'MISSING'

    def __repr__(self):
        return '<%s %s>' % (self.__class__.__name__, self.name)

    def __str__(self):
        return self.name


def _duration_ns(value):
    """tc's time: '15ms', '100us', '1s', '2.5ms'; a bare number is microseconds."""
    m = re.match(r'^\s*([\d.]+)\s*(s|ms|us|usec|msec|sec)?\s*$', str(value))
    if not m:
        raise ValueError('a delay or jitter of %r: give it as tc does (15ms, 100us, 1s)' % (value,))
    scale = {'s': 1e9, 'sec': 1e9, 'ms': 1e6, 'msec': 1e6, 'us': 1e3, 'usec': 1e3, None: 1e3}[m.group(2)]
    return int(float(m.group(1)) * scale)


def _veth_now(node1, name1, node2, name2):
    """Mininet's low-level API: a Link between two nodes of no network is their veth pair, made
    at once in the machine's namespace and each end moved into its node's namespace."""
    for node in (node1, node2):
        if not node.standalone:
            raise NotImplementedError('Link(%s, %s): %s is a %s of no network; outside a network flowlab '
                                      'links Nodes and Hosts only' % (node1, node2, node, type(node).__name__))
        node._started()
    tmp = 'fmn%d' % os.getpid()  # made under temporary names: the final ones may exist in the machine's namespace
    steps = [['ip', 'link', 'add', tmp + 'a', 'type', 'veth', 'peer', 'name', tmp + 'b']]
    for end, node, name in ((tmp + 'a', node1, name1), (tmp + 'b', node2, name2)):
        if node._ns_command():
            steps.append(['ip', 'link', 'set', end, 'netns', node.ns])
        steps.append(node._ns_command() + ['ip', 'link', 'set', end, 'name', name])
    for step in steps:
        p = subprocess.run(step, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            for end, node, name in ((tmp + 'a', node1, name1), (tmp + 'b', node2, name2)):
                for n in (end, name):
                    subprocess.run(node._ns_command() + ['ip', 'link', 'del', n], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
            raise Exception('Link(%s, %s): `%s`: %s' % (node1, node2, ' '.join(step), p.stdout.strip()))


class TCIntf(Intf):
    """An Intf with Mininet's tc options (bw, delay, jitter, loss, max_queue_size)."""


class Link:
    """A veth pair between two nodes; port numbers and names as Mininet gives them."""

    shaped = False

    def __init__(self, node1, node2, port1=None, port2=None, intfName1=None, intfName2=None,
                 addr1=None, addr2=None, intf=Intf, cls1=None, cls2=None, params1=None,
                 params2=None, fast=True, **params):
        if node1.net is not None and node1.net.started:
            raise NotImplementedError('addLink(%s, %s): flowlab builds every link at net.start(); adding one '
                                      'to a running network is not supported' % (node1.name, node2.name))
        params1 = dict(params1 or {})
        params2 = dict(params2 or {})
        if self.shaped:
            params1.update(params)
            params2.update(params)
        elif params:
            unknown = sorted(k for k in params if k in ('bw', 'delay', 'jitter', 'loss', 'max_queue_size'))
            if unknown:
                raise ValueError('Link(%s, %s): %s need a TCLink (link=TCLink or cls=TCLink), as in Mininet '
                                 'where a plain Link ignores them' % (node1.name, node2.name, ', '.join(unknown)))
        if port1 is None:
            port1 = node1.newPort()
        if port2 is None:
            port2 = node2.newPort()
        if not intfName1:
            intfName1 = '%s-eth%d' % (node1.name, port1)
        if not intfName2:
            intfName2 = '%s-eth%d' % (node2.name, port2)
        cls1 = cls1 or intf
        cls2 = cls2 or intf
        if node1.net is None and node2.net is None:
            _veth_now(node1, intfName1, node2, intfName2)
        self.intf1 = cls1(intfName1, node=node1, port=port1, link=self, mac=addr1, **params1)
        self.intf2 = cls2(intfName2, node=node2, port=port2, link=self, mac=addr2, **params2)
        self.params = dict(params)
        for intf in (self.intf1, self.intf2):
            if intf.node.net is None and intf.mac:
                intf.setMAC(intf.mac)

    def shape(self):
        """The lab's shaping keys of this link: each TCIntf shapes what leaves it (intf1: a_to_b,
        intf2: b_to_a), a TCLink both its ends alike."""
        ends = [self._intf_shape(i) if (self.shaped or isinstance(i, TCIntf)) else None
                for i in (self.intf1, self.intf2)]
        if ends == [None, None]:
            return {}
        a, b = (e if e is not None else {} for e in ends)
        if a == b:
            out = dict(a)
        else:
            out = {'a_to_b': a, 'b_to_a': b}
        # Always a queue: the link goes through a wire namespace of its own (1000 packets, the
        # lab's and netem's default, without a rate), so that intf.config() can re-shape it at run time.
        out.setdefault('queue', 1000)
        return out

    @staticmethod
    def _intf_shape(intf):
        p = intf.params
        out = {}
        if p.get('bw') is not None:
            out['bw'] = '%gM' % float(p['bw'])
        for key in ('delay', 'jitter'):
            if p.get(key) is not None:
                v = str(p[key])
                out[key] = v if re.search(r'[a-z]$', v) else v + 'us'  # tc's bare number is microseconds
        if p.get('loss'):
            out['loss'] = '%g%%' % float(p['loss'])
        if p.get('max_queue_size') is not None:
            out['queue'] = int(p['max_queue_size'])
        return out

    def intfs(self):
        return self.intf1, self.intf2

    def stop(self):
        self.delete()

    def delete(self):
        self.intf1.delete()
        self.intf2.delete()

    def status(self):
        return '(%s %s)' % (self.intf1.status(), self.intf2.status())

    def __str__(self):
        return '%s<->%s' % (self.intf1, self.intf2)


class TCLink(Link):
    """A Link shaped with Mininet's tc options."""
    shaped = True

    def __init__(self, node1, node2, port1=None, port2=None, intfName1=None, intfName2=None,
                 addr1=None, addr2=None, **params):
        Link.__init__(self, node1, node2, port1=port1, port2=port2, intfName1=intfName1,
                      intfName2=intfName2, cls1=TCIntf, cls2=TCIntf, addr1=addr1, addr2=addr2, **params)


class TCULink(TCLink):
    """TCLink (Mininet's variant for user-space switches)."""


class OVSLink(Link):
    """A Link (Mininet's patch-port variant between OVS switches is a veth here)."""
