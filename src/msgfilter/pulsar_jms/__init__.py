"""Everything of DataStax pulsar-jms's conventions, in one place.

- `values`: the property codec: typed JMS properties as pulsar-jms writes them in Pulsar's
  string properties, with a ``_jsmtype`` companion (`decode_value`, `encode_value`,
  `encode_properties`, `JsmTypeError`);
- `headers`: the selector's view of a message: properties decoded by type and the JMS
  header fields pulsar-jms's broker derives (`decode_properties`, `jms_destination`);
- `reader`: the typed reader runtime (`TypedReader`, its `Reads` and memo, `TypedView`);
- `evaluator`: the typed evaluator contract, ``f(V, P, H, R, M)`` (`TYPED_READS`);
- `judge`: how one subscription's and one consumer's selectors judge messages;
- `messages`: `msgfilter.Message` objects for Pulsar messages (`pulsar_message`).

The pulsar-jms entry filter is `msgfilter.broker.JmsSelectorFilter`
(`msgfilter.broker.pulsar_jms`), beside the broker API it implements.
"""

from .evaluator import TYPED_READS
from .headers import (
    DEFAULT_PRIORITY,
    DERIVED_HEADERS,
    NON_PERSISTENT,
    PERSISTENT,
    decode_properties,
    jms_destination,
)
from .messages import adopted_pulsar_message, pulsar_message
from .reader import DecodeMemo, Reads, TypedReader, TypedView
from .values import (
    KNOWN_TYPES,
    SYSTEM_PROPERTY_TYPES,
    TYPE_SUFFIX,
    JsmTypeError,
    decode_value,
    encode_properties,
    encode_value,
)

__all__ = [
    "DEFAULT_PRIORITY",
    "DERIVED_HEADERS",
    "KNOWN_TYPES",
    "NON_PERSISTENT",
    "PERSISTENT",
    "SYSTEM_PROPERTY_TYPES",
    "TYPED_READS",
    "TYPE_SUFFIX",
    "DecodeMemo",
    "JsmTypeError",
    "Reads",
    "TypedReader",
    "TypedView",
    "adopted_pulsar_message",
    "decode_properties",
    "decode_value",
    "encode_properties",
    "encode_value",
    "jms_destination",
    "pulsar_message",
]
