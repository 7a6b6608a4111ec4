"""msgfilter: broker-side message filtering.

    >>> import msgfilter
    >>> f = msgfilter.compile("color = 'red' AND weight > 2.5")
    >>> f.matches({"color": "red", "weight": 3.0})
    True
"""

from .engine import CacheInfo, cache_info, compile, purge
from .errors import (
    FilterError,
    FilterLimitError,
    FilterPositionError,
    FilterSyntaxError,
    FilterTypeError,
)
from .filter import Filter
from .limits import Limits
from .message import Message
from .semantics.activemq import EvaluationFailure

__all__ = [
    "CacheInfo",
    "EvaluationFailure",
    "Filter",
    "FilterError",
    "FilterLimitError",
    "FilterPositionError",
    "FilterSyntaxError",
    "FilterTypeError",
    "Limits",
    "Message",
    "cache_info",
    "compile",
    "purge",
]

__version__ = "0.1.0"
