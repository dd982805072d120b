"""An interface of the machine given to a node of a network, as hwintf.py does with
`Intf('eth1', node=s1)`: Mininet's switches run in the machine's namespace, where the
interface already is; flowlab's switches and hosts are in the lab's namespaces, so the
interface is moved into its node's namespace when the lab is up (or at once in a
running network), joins the switch as a port of the OpenFlow number Mininet gave it,
and is moved back to the machine's namespace before the lab is taken down (a veth left
in a namespace that is removed would be destroyed with it)."""
import os
import subprocess


def _run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout.strip()


def check_existing(intf):
    """Before the lab has it: the interface must exist in the machine's namespace."""
    if not intf.node.ns and not os.path.exists('/sys/class/net/%s' % intf.name):
        raise Exception('Intf(%s, node=%s): there is no interface %s in the machine\'s namespace' %
                        (intf.name, intf.node.name, intf.name))


def existing_intfs(net):
    return [i for node in net.hosts + net.switches for i in node.intfList() if getattr(i, 'existing', False)]


def attach(net, intf):
    """Moves the interface into its node's namespace and connects it there: a switch port (Open
    vSwitch: `add-port` with its OpenFlow number; Linux bridge: enslaved), or a host's interface
    with its address."""
    node = intf.node
    kind = getattr(node, 'lab_kind', 'host')
    if kind not in ('ovs', 'linux-bridge', 'host'):
        raise NotImplementedError('Intf(%s, node=%s): an interface of the machine joins an Open vSwitch switch, '
                                  'a Linux bridge or a host; flowlab\'s own switch takes its ports when the lab '
                                  'starts' % (intf.name, node.name))
    code, out = _run(['ip', 'link', 'set', intf.name, 'netns', node.ns])
    if code != 0:
        raise Exception('Intf(%s, node=%s): moving it into the lab (namespace %s): %s' %
                        (intf.name, node.name, node.ns, out))
    intf.moved = True
    if kind == 'ovs':
        port = node.ports[intf]
        out = node.cmd('ovs-vsctl add-port %s %s -- set Interface %s ofport_request=%d && echo attached' %
                       (node.name, intf.name, intf.name, port))
    elif kind == 'linux-bridge':
        out = node.cmd('ip link set %s master br-%s && echo attached' % (intf.name, node.name))
    else:
        out = node.cmd('echo attached')
        if intf.ip:
            intf.setIP(intf.ip, intf.prefixLen)
    if 'attached' not in out:
        raise Exception('Intf(%s, node=%s): %s' % (intf.name, node.name, out.strip()))
    node.cmd('ip link set %s up' % intf.name)


def attach_all(net):
    for intf in existing_intfs(net):
        attach(net, intf)


def release_all(net):
    """Every interface of the machine back into its namespace (down, as it came)."""
    for intf in existing_intfs(net):
        if getattr(intf, 'moved', False):
            _run(['ip', '-n', intf.node.ns, 'link', 'set', intf.name, 'down'])
            _run(['ip', '-n', intf.node.ns, 'link', 'set', intf.name, 'netns', '1'])
            intf.moved = False
