"""mininet.node's controllers (Mininet's names, re-exported there): each maps to a
controller of the flowlab lab (or, RemoteController, one the lab does not start)."""
import os

from mininet.basenode import Node


class Controller(Node):
    """An OpenFlow controller: flowlab's controller with its learning switch. Made by
    net.addController it is one the lab starts in its core namespace. Made as a host of a
    network (`addHost('c0', cls=Controller)`, controlnet.py's DataController) it is a node of
    that network with its address on its interface, and start() runs the controller in its
    namespace, listening on its port there (`flowlab controller`, its output in /tmp/NAME.log,
    as Mininet's `controller`); another network's switches reach it at its address."""

    standalone = False  # the lab starts it: no namespace of its own outside a network

    def __init__(self, name, inNamespace=False, command='controller', cargs='ptcp:%d', cdir=None,
                 ip='127.0.0.1', port=6653, protocol='tcp', **params):
        params.pop('verbose', None)
        ip = str(ip)
        if ':' in ip:  # Mininet's shorthand ip='A:P'
            ip, port = ip.split(':')
            port = int(port)
        Node.__init__(self, name, inNamespace=inNamespace, ip=ip, **params)
        self.ip, self.port, self.protocol = ip.split('/')[0], port, protocol
        self.controllerPid = None  # a host's controller process (start())

    def isHost(self):
        """True for a controller that is a host of its network (it has a namespace and an
        address there), not one the lab starts."""
        return self.net is not None and self in self.net.hosts

    def lab_spec(self):
        if self.isHost():  # runs at its address, in its own network: reached as a remote one
            return {'kind': 'remote', 'address': self.IP(), 'port': int(self.port)}
        spec = {'kind': 'flowlab', 'apps': ['learning-switch']}
        if self.port != 6653:  # OpenFlow's port: the lab's default (and its next ones for more controllers)
            spec['port'] = int(self.port)
        return spec

    def start(self):
        """A host's controller: started in its namespace unless it runs; waits until it listens."""
        if not self.isHost() or self.controllerPid:
            return
        from mininet.lab import flowlab_bin
        out = self.cmd('%s controller --listen ptcp:%d --app learning-switch 1>/tmp/%s.log 2>&1 & echo $!' %
                       (flowlab_bin(), int(self.port), self.name))
        self.controllerPid = int(out.split()[-1])
        listening = self.cmd('for i in $(seq 100); do ss -Hltn "sport = :%d" | grep -q . && echo listening && '
                             'break; sleep 0.1; done' % int(self.port))
        if 'listening' not in listening:
            raise Exception('%s: its controller does not listen on port %d after 10 s (see /tmp/%s.log)' %
                            (self.name, int(self.port), self.name))

    def stop(self, *args, **kwargs):
        """A host's controller process ends (its node stays its network's: its interfaces go
        when that network stops); a controller of the lab goes with the lab."""
        if self.controllerPid:
            if self.shell is not None and self.shell.poll() is None and not self.waiting:
                self.cmd('kill %d; wait %d' % (self.controllerPid, self.controllerPid))
            else:
                try:
                    os.kill(self.controllerPid, 15)
                except OSError:
                    pass
            self.controllerPid = None
        if not self.isHost():
            self.terminate()

    def IP(self, intf=None):
        if self.intfs:
            return Node.IP(self, intf)
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
