"""mininet.clean: `mn -c` is `flowlab lab clean --force` (what crashed labs left)."""
import subprocess

from mininet.lab import flowlab_bin


def cleanup():
    """What crashed labs left, and the cgroups of this script's hosts that no running network holds."""
    import sys
    if 'mininet.cpulimit' in sys.modules:
        sys.modules['mininet.cpulimit'].release_idle()
    subprocess.run([flowlab_bin(), 'lab', 'clean', '--force'], check=False)


class Cleanup:
    cleanup = staticmethod(cleanup)


def sh(cmd):
    """Output of a shell command in the machine's namespace (Mininet's clean.sh)."""
    return subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
