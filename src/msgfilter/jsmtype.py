"""The older name of `msgfilter.pulsar_jms` (pulsar-jms's typed properties, derived headers,
typed reader and Pulsar messages), kept for the imports the guides show: importing it gives
that very module."""

import sys

from . import pulsar_jms as target

# One module under two names, not a copy of its names: the import system hands out
# what sys.modules holds once this module has run.
sys.modules[__name__] = target
