"""A node of a network with inNamespace=False (controlnet.py's `root` host: the machine's
way into its control network). The lab makes it a namespace and links like any host; once
the lab is up its interfaces move into the namespace the script runs in (the machine's),
under names unique to this run (`root-eth0` could be another run's: the machine's
namespace is shared), with the node's address, and its shell runs there. At net.stop()
they go back to the lab's namespace (down, their Mininet names again) before the lab is
taken down; if the script is killed outright, each is the end of a veth pair whose other
end is in the lab's core namespace, and goes with it when the lab's supervisor removes
that namespace."""
import os
import subprocess

from mininet.basenode import MACHINE_NS


def _run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout.strip()


def _base36(n):
    digits = '0123456789abcdefghijklmnopqrstuvwxyz'
    out = ''
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


def machine_name(node, port):
    """The interface's name in the machine's namespace: the node's name (cut), this process's
    pid and the port, at most 15 characters: `root-1x2ye0`."""
    tail = '-%se%d' % (_base36(os.getpid()), port)
    return node.name[:15 - len(tail)] + tail


def move_to_machine(node):
    """Moves the node's interfaces from its lab namespace into the script's, with their
    addresses, up; the node's shell runs there from now on."""
    labns = node.ns
    node.labNs = labns
    here = str(os.getpid())
    for port, intf in sorted(node.intfs.items()):
        new = machine_name(node, port)
        if os.path.exists('/sys/class/net/%s' % new):
            raise Exception('%s: an interface %s exists in the machine\'s namespace already' % (node.name, new))
        code, out = _run(['ip', '-n', labns, 'link', 'set', intf.name, 'name', new])
        if code == 0:
            code, out = _run(['ip', '-n', labns, 'link', 'set', new, 'netns', here])
            if code != 0:
                _run(['ip', '-n', labns, 'link', 'set', new, 'name', intf.name])
        if code != 0:
            raise Exception('%s (inNamespace=False): moving %s into the machine\'s namespace: %s' %
                            (node.name, intf.name, out))
        intf.labName = intf.name
        node.nameToIntf.pop(intf.name, None)
        intf.name = new
        node.nameToIntf[new] = intf
        if intf.mac:
            _run(['ip', 'link', 'set', new, 'address', intf.mac])
        if intf.ip:
            code, out = _run(['ip', 'addr', 'add', '%s/%s' % (intf.ip, intf.prefixLen), 'dev', new])
            if code != 0:
                raise Exception('%s: address %s on %s: %s' % (node.name, intf.ip, new, out))
        _run(['ip', 'link', 'set', new, 'up'])
    node.ns = MACHINE_NS


def return_from_machine(node):
    """The node's interfaces back in its lab namespace under their Mininet names (down: their
    addresses and routes leave the machine's namespace with them); one that cannot move is
    deleted (its veth peer with it)."""
    labns = getattr(node, 'labNs', None)
    for intf in node.intfList():
        old = getattr(intf, 'labName', None)
        if old is None:
            continue
        moved = False
        if labns:
            _run(['ip', 'link', 'set', intf.name, 'down'])
            code, _ = _run(['ip', 'link', 'set', intf.name, 'netns', labns])
            moved = code == 0
            if moved:
                _run(['ip', '-n', labns, 'link', 'set', intf.name, 'name', old])
        if not moved:
            _run(['ip', 'link', 'del', intf.name])
        node.nameToIntf.pop(intf.name, None)
        intf.name = old
        node.nameToIntf[old] = intf
        del intf.labName
