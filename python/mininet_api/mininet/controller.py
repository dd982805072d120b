"""mininet.node's controllers (Mininet's names, re-exported there): each maps to a
controller of the flowlab lab (or, RemoteController, one the lab does not start)."""
import os

from mininet.basenode import Node


class Controller(Node):
    """An OpenFlow controller the lab starts: flowlab's controller with its learning switch."""

    standalone = False  # the lab starts it: no namespace of its own outside a network

    def __init__(self, name, inNamespace=False, command='controller', cargs='ptcp:%d', cdir=None,
                 ip='127.0.0.1', port=6653, protocol='tcp', **params):
        Node.__init__(self, name, inNamespace=inNamespace, **params)
        self.ip, self.port, self.protocol = ip, port, protocol

    def lab_spec(self):
        spec = {'kind': 'flowlab', 'apps': ['learning-switch']}
        if self.port != 6653:  # OpenFlow's port: the lab's default (and its next ones for more controllers)
            spec['port'] = int(self.port)
        return spec

    def start(self):
        pass

    def stop(self, *args, **kwargs):
        self.terminate()

    def IP(self, intf=None):
        return self.ip

    def checkListening(self):
        return True


class OVSController(Controller):
    """ovs-testcontroller's learning switch: flowlab's learning switch here."""


class NOX(Controller):
    def __init__(self, name, *noxArgs, **kwargs):
        raise NotImplementedError('NOX(%s): NOX is not available; use Controller or RemoteController' % name)


class Ryu(Controller):
    """Ryu apps run as os-ken apps (Debian's python3-os-ken): Ryu('c0', 'app.py')."""

    def __init__(self, name, *ryuArgs, **kwargs):
        Controller.__init__(self, name, **kwargs)
        apps = [a for a in ryuArgs if a.endswith('.py')]
        if len(apps) != 1 or len(ryuArgs) != 1:
            raise NotImplementedError('Ryu(%s, %s): give one app as a .py file (run by os-ken)' %
                                      (name, ', '.join(ryuArgs)))
        self.app = os.path.abspath(apps[0])

    def lab_spec(self):
        return {'kind': 'os-ken', 'app': self.app}


class RemoteController(Controller):
    """A controller running elsewhere, at ip:port; the lab does not start it."""

    def __init__(self, name, ip='127.0.0.1', port=None, **kwargs):
        Controller.__init__(self, name, ip=ip, port=port or 6653, **kwargs)

    def lab_spec(self):
        return {'kind': 'remote', 'address': self.ip, 'port': int(self.port)}


DefaultController = Controller
DefaultControllers = (Controller, OVSController)
