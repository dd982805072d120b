"""mininet.log: Mininet's levels and its newline-less info()/output()."""
import sys

LEVELS = {'debug': 10, 'info': 20, 'output': 25, 'warning': 30, 'warn': 30, 'error': 40, 'critical': 50}
LEVELDEFAULT = 'output'


class MininetLogger:
    """The `lg` object scripts call: setLogLevel and one method per level."""

    def __init__(self):
        self.level = LEVELS[LEVELDEFAULT]

    def setLogLevel(self, levelname=None):
        if levelname is None:
            levelname = LEVELDEFAULT
        if levelname not in LEVELS:
            raise Exception('unknown levelname seen in setLogLevel: %s (one of %s)' %
                            (levelname, ', '.join(sorted(LEVELS))))
        self.level = LEVELS[levelname]

    def isEnabledFor(self, level):
        return level >= self.level

    def _emit(self, level, args):
        if level >= self.level:
            sys.stdout.write(' '.join(str(a) for a in args))  # as Mininet's: arguments joined by spaces
            sys.stdout.flush()

    def debug(self, *args):
        self._emit(10, args)

    def info(self, *args):
        self._emit(20, args)

    def output(self, *args):
        self._emit(25, args)

    def warning(self, *args):
        self._emit(30, args)

    warn = warning

    def error(self, *args):
        self._emit(40, args)


lg = MininetLogger()
setLogLevel = lg.setLogLevel
debug, info, output, warning, warn, error = lg.debug, lg.info, lg.output, lg.warning, lg.warn, lg.error
