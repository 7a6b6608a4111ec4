"""The older name of `msgfilter.pulsar_jms`: pulsar-jms's typed properties, derived
headers, typed reader and Pulsar messages (see there). Kept so that the imports documented
in 0.1.0's pre-releases work; new code imports `msgfilter.pulsar_jms`."""

from .pulsar_jms import (
    DEFAULT_PRIORITY,
    DERIVED_HEADERS,
    KNOWN_TYPES,
    NON_PERSISTENT,
    PERSISTENT,
    SYSTEM_PROPERTY_TYPES,
    TYPE_SUFFIX,
    TYPED_READS,
    DecodeMemo,
    JsmTypeError,
    Reads,
    TypedReader,
    TypedView,
    adopted_pulsar_message,
    decode_properties,
    decode_value,
    encode_properties,
    encode_value,
    jms_destination,
    pulsar_message,
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
