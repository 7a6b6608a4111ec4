"""The typed evaluator contract of pulsar-jms: how a compiled selector reads pulsar-jms
messages, the one signature every part of msgfilter that builds or runs one keeps to.

A typed evaluator is ``f(V, P, H, R, M) -> bool``:

- ``V``: what the message shows under each name (a header wins over a property), the dict
  `msgfilter.Message.view_dict`;
- ``P``: its properties, `Message.property_dict`; ``H``: its header fields,
  `Message.header_dict`;
- ``R``: a `msgfilter.pulsar_jms.reader.Reads`, with ``read(P, H, name)`` (the whole
  rule for one name: a derived header, a system-typed name) and ``decode(type, text,
  name)`` (one typed text, remembered in ``M``, or `JsmTypeError`); ``R.failed`` names
  the property whose read failed;
- ``M``: the memo ``R.memo``: ``M[type][text]`` is the decoded value, for every type of
  `KNOWN_TYPES`.

It answers like `Filter.matches`, and False (with ``R.failed`` set) where a read raised.
Its batch form ``f(S, R, M) -> list[bool]`` answers for each `msgfilter.Message` of the
sequence ``S``. `SelectorFilter.typed_matches(TYPED_READS)` and
`SelectorFilter.typed_matches_all(TYPED_READS)` compile them; the Python backend's
`TypedReads` is the switch record that tells the code generator which names go through
``R.read`` (`TYPED_READS.derived`) and the companion suffix.
"""

from __future__ import annotations

from ..backends.python.generator import TypedReads
from ..message import KEYS_PROPERTY, TAGS_PROPERTY
from .headers import DERIVED_HEADERS
from .values import SYSTEM_PROPERTY_TYPES, TYPE_SUFFIX

#: How a typed evaluator reads pulsar-jms messages: derived headers and system-typed
#: names through `Reads.read`. ``TAGS`` and ``KEYS`` too: `Message.view` shows a
#: message's tag and keys under them, the broker does not.
TYPED_READS = TypedReads(
    DERIVED_HEADERS | SYSTEM_PROPERTY_TYPES.keys() | {TAGS_PROPERTY, KEYS_PROPERTY},
    TYPE_SUFFIX,
)
