"""The older name of `msgfilter.java.types` (Java's typed values for the `activemq`, `qpid`
and `artemis` dialects), kept for the imports the guides show: importing it gives that
very module."""

import sys

from .java import types as target

# One module under two names, not a copy of its names: the import system hands out
# what sys.modules holds once this module has run.
sys.modules[__name__] = target
