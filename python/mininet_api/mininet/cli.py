"""mininet.cli: Mininet's prompt on a network of this API (`CLI(net)`), reading a
terminal, a pipe or a script file."""
import cmd
import os
import re
import subprocess
import sys
import time

from mininet.log import error, output


class CLI(cmd.Cmd):
    """`mininet> ` commands: nodes, net, dump, links, intfs, ports, pingall(full), pingpair(full),
    iperf, iperfudp, link X Y up|down, sh, py, time, source, exit/quit/EOF, and NODE CMD with
    node names replaced by their addresses."""

    prompt = 'mininet> '

    def __init__(self, mininet, stdin=sys.stdin, script=None, **kwargs):
        self.mn = mininet
        self.locals = {'net': mininet}
        cmd.Cmd.__init__(self, stdin=stdin, **kwargs)
        self.use_rawinput = stdin is sys.stdin and sys.stdin.isatty()
        if script:
            self.do_source(script)
            return
        output('*** Starting CLI:\n')
        self.run()

    def run(self):
        while True:
            try:
                self.cmdloop()
                break
            except KeyboardInterrupt:
                output('\nInterrupt\n')

    def emptyline(self):
        pass

    def getLocals(self):
        self.locals.update(self.mn)
        return self.locals

    def precmd(self, line):
        return line

    # ---- what is in the network ----
    def do_nodes(self, _line):
        """List all nodes."""
        output('available nodes are: \n%s\n' % ' '.join(sorted(self.mn.nameToNode)))

    def do_net(self, _line):
        """List network connections."""
        from mininet.util import dumpNodeConnections
        dumpNodeConnections(self.mn.controllers + self.mn.switches + self.mn.hosts)

    def do_dump(self, _line):
        """Dump node info."""
        for node in self.mn.values():
            output('%s\n' % repr(node))

    def do_links(self, _line):
        """Report on links."""
        for link in self.mn.links:
            output(link, link.status(), '\n')

    def do_intfs(self, _line):
        """List interfaces."""
        for node in self.mn.values():
            output('%s: %s\n' % (node.name, ','.join(node.intfNames())))

    def do_ports(self, _line):
        """Display ports and interfaces for each switch."""
        for switch in self.mn.switches:
            output('%s ' % switch.name)
            for intf in switch.intfList():
                output('%s:%d ' % (intf.name, switch.ports[intf]))
            output('\n')

    # ---- tests ----
    def do_pingall(self, line):
        """Ping between all hosts."""
        self.mn.pingAll(*line.split())

    def do_pingallfull(self, _line):
        """Ping between all hosts, returns all ping results."""
        self.mn.pingAllFull()

    def do_pingpair(self, _line):
        """Ping between first two hosts."""
        self.mn.pingPair()

    def do_pingpairfull(self, _line):
        """Ping between first two hosts, returns all ping results."""
        self.mn.pingPairFull()

    def _hosts(self, args, n):
        hosts = [self.mn[a] for a in args if a in self.mn]
        if len(hosts) != len(args):
            error('invalid host: %s\n' % ' '.join(a for a in args if a not in self.mn))
            return None
        return hosts

    def do_iperf(self, line):
        """Simple iperf TCP test between two (optionally specified) hosts. Usage: iperf node1 node2"""
        args = line.split()
        if not args:
            self.mn.iperf(l4Type='TCP')
        elif len(args) == 2:
            hosts = self._hosts(args, 2)
            if hosts:
                self.mn.iperf(hosts, l4Type='TCP')
        else:
            error('invalid number of args: iperf src dst\n')

    def do_iperfudp(self, line):
        """Simple iperf UDP test between two (optionally specified) hosts. Usage: iperfudp bw node1 node2"""
        args = line.split()
        if not args:
            self.mn.iperf(l4Type='UDP')
        elif len(args) == 3:
            hosts = self._hosts(args[1:], 2)
            if hosts:
                self.mn.iperf(hosts, l4Type='UDP', udpBw=args[0])
        else:
            error('invalid number of args: iperfudp bw src dst\nbw examples: 10M\n')

    def do_link(self, line):
        """Bring link(s) between two nodes up or down. Usage: link node1 node2 [up/down]"""
        args = line.split()
        if len(args) != 3:
            error('invalid number of args: link end1 end2 [up down]\n')
        elif args[2] not in ('up', 'down'):
            error('invalid type: link end1 end2 [up down]\n')
        else:
            self.mn.configLinkStatus(*args)

    def do_switch(self, line):
        """Starts or stops a switch. Usage: switch <switch name> {start, stop}"""
        args = line.split()
        if len(args) != 2 or args[1] not in ('start', 'stop'):
            error('invalid number of args: switch <switch name> {start, stop}\n')
            return
        sw = self.mn.nameToNode.get(args[0])
        if sw not in self.mn.switches:
            error('invalid switch: %s\n' % args[0])
            return
        if args[1] == 'start':
            sw.start(self.mn.controllers)
        else:
            sw.stop(deleteIntfs=False)

    # ---- commands ----
    def do_sh(self, line):
        """Run an external shell command. Usage: sh [cmd args]
        ovs-vsctl and ovs-ofctl reach the network's Open vSwitch (its own database)."""
        lab = getattr(self.mn, 'lab', None)
        rundir = lab.record.get('ovs_rundir') if lab else None
        subprocess.call(line, shell=True, env=dict(os.environ, OVS_RUNDIR=rundir) if rundir else None)

    def do_py(self, line):
        """Evaluate a Python expression, node names bound to their nodes. Usage: py [expr]"""
        try:
            result = eval(line, globals(), self.getLocals())
            if result is not None:
                output(str(result) + '\n')
        except Exception as e:  # noqa: BLE001 (Mininet prints any error of the expression)
            output(str(e) + '\n')

    def do_px(self, line):
        """Execute a Python statement."""
        try:
            exec(line, globals(), self.getLocals())
        except Exception as e:  # noqa: BLE001
            output(str(e) + '\n')

    def do_time(self, line):
        """Measure time taken for any command in Mininet."""
        start = time.time()
        self.onecmd(line)
        output('*** Elapsed time: %0.6f secs\n' % (time.time() - start))

    def do_source(self, line):
        """Read commands from an input file. Usage: source <file>"""
        args = line.split()
        if len(args) != 1:
            error('usage: source <file>\n')
            return
        try:
            with open(args[0]) as f:
                for cmdline in f:
                    cmdline = cmdline.strip()
                    if cmdline and not cmdline.startswith('#'):
                        output('*** %s\n' % cmdline)
                        self.onecmd(cmdline)
        except IOError:
            error('error reading file %s\n' % args[0])

    def do_dpctl(self, line):
        """Run dpctl (ovs-ofctl) command on all switches. Usage: dpctl command [arg1] [arg2] ..."""
        args = line.split()
        if not args:
            error('usage: dpctl command [arg1] [arg2] ...\n')
            return
        for sw in self.mn.switches:
            output('*** ' + sw.name + ' ' + ('-' * 72) + '\n')
            output(sw.dpctl(*args))

    def do_xterm(self, line):
        error('xterm: flowlab opens no X11 terminals\n')

    do_x = do_gterm = do_xterm

    def do_noecho(self, line):
        self.default(line)

    def do_wait(self, _line):
        """Wait until all switches have connected to a controller."""
        self.mn.waitConnected()

    def do_exit(self, _line):
        """Exit."""
        return 'exited by user command'

    def do_quit(self, line):
        """Exit."""
        return self.do_exit(line)

    def do_EOF(self, line):
        """Exit."""
        output('\n')
        return self.do_exit(line)

    def default(self, line):
        """NODE CMD: runs CMD in NODE's shell, other node names replaced by their addresses."""
        first, _, rest = line.partition(' ')
        if first not in self.mn:
            error('*** Unknown command: %s\n' % line)
            return
        node = self.mn[first]
        words = []
        for w in rest.split(' '):
            words.append(self.mn[w].defaultIntf().IP() if w in self.mn and self.mn[w].defaultIntf()
                         and self.mn[w].IP() else w)
        out = node.cmd(' '.join(words))
        output(out)

    def completenames(self, text, *ignored):
        return [n for n in list(self.mn.nameToNode) + self.get_names_cmds() if n.startswith(text)]

    def get_names_cmds(self):
        return [a[3:] for a in self.get_names() if a.startswith('do_')]

    def completedefault(self, text, *ignored):
        return [n for n in self.mn.nameToNode if n.startswith(text)]
