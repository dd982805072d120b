"""CPULimitedHost: a host whose processes share a CPU bandwidth limit, in cgroup v1's cpu
controller (and cpuacct, which counts their CPU time): sched='cfs' a CFS quota, sched='rt'
real-time throttling (rt_runtime_us; the host's shell and its children run SCHED_RR at
rtprio), as Mininet's. cpu=f is the fraction of the whole machine (all cores). The
cgroups are made by the host's constructor, as Mininet's (a limit the kernel refuses
fails Mininet(), which cpu.py catches to skip that scheduler), and removed at stop, or
at exit for a network never started."""
import atexit
import itertools
import os
import time

from mininet.log import info, output
from mininet.node import Host

CPU = '/sys/fs/cgroup/cpu'
CPUACCT = '/sys/fs/cgroup/cpuacct'


def _write(path, value):
    with open(path, 'w') as fh:
        fh.write(str(value))


_serial = itertools.count(1)
_with_cgroups = set()  # the hosts whose cgroups exist


@atexit.register
def _remove_cgroups():
    """What a network never started (or a constructor that failed) left."""
    for host in list(_with_cgroups):
        host.terminate()


def release_idle():
    """Removes the cgroups of this process's hosts that are not in a running network
    (mininet.clean.cleanup(): cpu.py calls it after a Mininet() its limits failed)."""
    for host in list(_with_cgroups):
        if host.net is None or not host.net.started:
            host.terminate()


class CPULimitedHost(Host):

    CGROOT = CPU

    def __init__(self, name, sched='cfs', rtprio=20, **params):
        Host.__init__(self, name, **params)
        if sched not in ('cfs', 'rt'):
            raise ValueError('CPULimitedHost(%s, sched=%s): sched is cfs or rt' % (name, sched))
        if params.get('cores') is not None:
            raise NotImplementedError('CPULimitedHost(%s, cores=%s): pinning to cores is not in flowlab\'s '
                                      'Mininet API' % (name, params.get('cores')))
        if sched == 'rt' and not os.path.exists(os.path.join(CPU, 'cpu.rt_runtime_us')):
            raise NotImplementedError('CPULimitedHost(%s, sched=rt): this kernel has no real-time group '
                                      'scheduling (CONFIG_RT_GROUP_SCHED: no cpu.rt_runtime_us in %s)' %
                                      (name, CPU))
        self.sched, self.rtprio = sched, rtprio
        self.cpu = params.get('cpu', -1)
        self.period_us = int(params.get('period_us', 100000))
        self.cgroup = None
        self.cgroups = []
        self._attach()

    def _attach(self):
        """Creates the host's cgroups with its limit; every process of the host goes in them.
        A limit the kernel refuses removes them again and raises."""
        if self.cgroup is None:
            for root in (CPU, CPUACCT):
                if not os.path.isdir(root):
                    raise Exception('%s: no cgroup v1 controller at %s' % (self.name, root))
            name = 'flowlab-mn-%d-%d-%s' % (os.getpid(), next(_serial), self.name)
            self.cgroups = [os.path.join(CPU, name), os.path.join(CPUACCT, name)]
            _with_cgroups.add(self)
            for d in self.cgroups:
                os.makedirs(d, exist_ok=True)
            self.cgroup = self.cgroups[0]
            try:
                self.setCPUFrac(self.cpu, self.sched)
            except BaseException:
                self.terminate()
                raise

    def setCPUFrac(self, f, sched=None):
        """The host's share of the machine: f x period x cores of CPU time per period."""
        sched = sched or self.sched
        if self.cgroup is None:
            self.cpu, self.sched = f, sched
            return
        unlimited = f is None or f < 0
        quota = max(1000, int(self.period_us * f * (os.cpu_count() or 1))) if not unlimited else -1
        if sched == 'rt':
            if unlimited:
                raise ValueError('%s: sched=rt needs a cpu fraction' % self.name)
            # Real-time runtime is time of one CPU per period: f of the whole machine is f x cores
            # of it (Mininet's f x period counted on kernels that let a CPU borrow the others'
            # runtime, RT_RUNTIME_SHARE, off since Linux 5.x). The kernel refuses groups whose
            # runtimes add up past its real-time share (95% of each CPU).
            runtime = max(1000, int(self.period_us * f * (os.cpu_count() or 1)))
            _write(os.path.join(self.cgroup, 'cpu.rt_period_us'), self.period_us)
            try:
                _write(os.path.join(self.cgroup, 'cpu.rt_runtime_us'), runtime)
            except OSError as e:
                raise Exception('%s: sched=rt, cpu=%g: the kernel refuses a real-time runtime of %d us per %d us '
                                '(%s): the real-time groups together may not pass /proc/sys/kernel/'
                                'sched_rt_runtime_us' % (self.name, f, runtime, self.period_us, e.strerror))
        else:
            _write(os.path.join(self.cgroup, 'cpu.cfs_period_us'), self.period_us)
            _write(os.path.join(self.cgroup, 'cpu.cfs_quota_us'), quota)
        self.cpu, self.sched = f, sched

    def _enter(self):
        """In a child before exec: joins the cgroups (and for rt, SCHED_RR at rtprio)."""
        for d in self.cgroups:
            _write(os.path.join(d, 'cgroup.procs'), os.getpid())
        if self.sched == 'rt':
            os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(self.rtprio))

    def _spawn_options(self):
        self._attach()
        return {'preexec_fn': self._enter}

    def cpuUsage(self):
        """CPU time the host's processes have used, in seconds (cpuacct)."""
        with open(os.path.join(self.cgroups[1], 'cpuacct.usage')) as fh:
            return int(fh.read()) / 1e9

    def terminate(self):
        Host.terminate(self)
        for d in self.cgroups:
            try:
                with open(os.path.join(d, 'cgroup.procs')) as fh:
                    for pid in fh.read().split():
                        try:
                            os.kill(int(pid), 9)
                        except OSError:
                            pass
            except OSError:
                continue
            for _ in range(50):
                try:
                    os.rmdir(d)
                    break
                except OSError:
                    time.sleep(0.02)
        self.cgroup = None
        self.cgroups = []
        _with_cgroups.discard(self)


def run_cpu_limit_test(net, cpu, duration=5):
    """Mininet's runCpuLimitTest: busy loops in each host (enough for its share of the cores),
    then each second each host's CPU use as a % of the machine; the list of them all."""
    info('*** Testing CPU %.0f%% bandwidth limit\n' % (cpu * 100))
    cores = os.cpu_count() or 1
    loops = max(1, -int(-cores * cpu // 1))
    pids = {}
    for h in net.hosts:
        pids[h] = []
        for _ in range(loops):
            h.cmd('while true; do a=1; done &')
            pids[h].append(h.cmd('echo $!').strip())
    outputs = dict((h, []) for h in net.hosts)
    last = dict((h, h.cpuUsage()) for h in net.hosts)
    for _ in range(duration):
        time.sleep(1)
        for h in net.hosts:
            now = h.cpuUsage()
            outputs[h].append((now - last[h]) / cores * 100)
            last[h] = now
    for h, ps in pids.items():
        for pid in ps:
            h.cmd('kill -9 %s' % pid)
    fractions = [pct for h in net.hosts for pct in outputs[h]]
    output('*** Results: %s\n' % fractions)
    return fractions
