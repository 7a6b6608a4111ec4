"""The selector's view of a pulsar-jms message: its properties decoded by type and the JMS
header fields its broker derives (`decode_properties`, one name at a time `decode_name`).

Properties that pulsar-jms writes without a companion have fixed types on the broker
(`SYSTEM_PROPERTY_TYPES`), and the selector sees some JMS header fields that the broker
derives: ``JMSPriority`` 4 and ``JMSDeliveryMode`` ``'PERSISTENT'`` when absent,
``JMSCorrelationID`` Base64-decoded, ``JMSXDeliveryCount`` always 0, and the fields taken
from Pulsar metadata (see `msgfilter.pulsar_jms.messages.pulsar_message`).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Collection, Mapping
from types import MappingProxyType

from .. import java as javalib
from ..java import types as jtypes
from .values import SYSTEM_PROPERTY_TYPES, SYSTEM_TYPE_OF, TYPE_SUFFIX, JsmTypeError, decode_value

#: javax.jms.Message.DEFAULT_PRIORITY: what the broker assumes when JMSPriority is absent.
DEFAULT_PRIORITY = 4
#: javax.jms.DeliveryMode.PERSISTENT, the default delivery mode.
PERSISTENT = 2
#: javax.jms.DeliveryMode.NON_PERSISTENT.
NON_PERSISTENT = 1

#: The header fields `decode_properties` derives rather than reads as plain properties.
DERIVED_HEADERS = frozenset(
    {
        "JMSPriority",
        "JMSDeliveryMode",
        "JMSTimestamp",
        "JMSXDeliveryCount",
        "JMSXGroupID",
        "JMSXGroupSeq",
        "JMSCorrelationID",
        "JMSReplyTo",
        "JMSDestination",
    }
)


#: What `decode_name` returns for a name the selector sees nothing under.
ABSENT: object = object()
_NO_HEADERS: Mapping[str, object] = MappingProxyType({})


def _java_base64(text: str, name: str) -> str:
    """`new String(Base64.getDecoder().decode(text), UTF_8)`, or JsmTypeError where Java throws."""
    stripped = text.rstrip("=")
    pads = len(text) - len(stripped)
    tail = len(stripped) % 4
    # Java's basic decoder takes padding or its absence, but not a wrong amount of it.
    if (
        not stripped.isascii()
        or re.fullmatch(r"[A-Za-z0-9+/]*", stripped) is None
        or tail == 1
        or (pads and pads != 4 - tail)
    ):
        raise JsmTypeError(name, "Base64 string", text)
    try:
        raw = base64.b64decode(stripped + "=" * (-len(stripped) % 4), validate=True)
    except binascii.Error as error:  # pragma: no cover - the checks above are stricter
        raise JsmTypeError(name, "Base64 string", text, str(error)) from None
    return raw.decode("utf-8", "replace")


def _as_int(value: object, default: int) -> int:
    """`Integer.parseInt(value + "")` with `default` where it throws (priority, delivery mode)."""
    if type(value) is int and -(2**31) <= value < 2**31:
        return value
    if isinstance(value, str):
        try:
            return javalib.parse_int(value)
        except javalib.JavaNumberFormatError:
            pass
    return default


def _type_of(props: Mapping[str, object], name: str) -> str | None:
    declared = props.get(name + TYPE_SUFFIX)
    if isinstance(declared, str):
        return declared
    return SYSTEM_PROPERTY_TYPES.get(name)


def _property(props: Mapping[str, object], name: str) -> object:
    """The decoded value of property `name` (None when absent)."""
    raw = props.get(name)
    if not isinstance(raw, str):
        # Already a Python value (or absent): nothing to decode.
        return raw
    return decode_value(raw, _type_of(props, name), name)


def jms_destination(topic: str, destination_type: str | None) -> str:
    """How ActiveMQ's selector shows a destination: ``queue://topic`` or ``topic://topic``.

    pulsar-jms's broker filter makes the subscription's topic a Queue when the consumer
    metadata ``jms.destination.type`` is "queue" (any case), a Topic otherwise.
    """
    kind = "queue" if (destination_type or "").lower() == "queue" else "topic"
    return f"{kind}://{topic}"


def _header(
    name: str,
    props: Mapping[str, object],
    headers: Mapping[str, object],
    destination: str | None,
) -> object:
    """The value the broker's selector sees for the derived header field `name`."""
    if name == "JMSPriority":
        return _as_int(_property(props, name), DEFAULT_PRIORITY) if name in props else (
            DEFAULT_PRIORITY
        )
    if name == "JMSDeliveryMode":
        mode = _as_int(_property(props, name), PERSISTENT) if name in props else PERSISTENT
        # ActiveMQ shows the mode as text; only 2 is persistent.
        return "PERSISTENT" if mode == PERSISTENT else "NON_PERSISTENT"
    if name == "JMSTimestamp":
        stamp = headers.get(name)
        return stamp if type(stamp) is int else 0
    if name == "JMSXDeliveryCount":
        # The broker does not know the delivery count and always shows 0.
        return 0
    if name == "JMSXGroupID":
        group = headers.get(name)
        return group if isinstance(group, str) else ""
    if name == "JMSXGroupSeq":
        seq = _property(props, name)
        if seq is not None:
            return seq
        fallback = headers.get(name)
        return fallback if fallback is not None else "0"
    if name == "JMSCorrelationID":
        raw = props.get(name)
        return _java_base64(raw, name) if isinstance(raw, str) else raw
    if name == "JMSReplyTo":
        reply = _property(props, name)
        if reply is None:
            return None
        kind = "topic" if str(_property(props, "JMSReplyToType")) == "topic" else "queue"
        return f"{kind}://{reply}"
    if name == "JMSDestination":
        return destination
    raise KeyError(name)  # pragma: no cover - callers pass DERIVED_HEADERS only


def decode_properties(
    props: Mapping[str, str],
    *,
    names: Collection[str] | None = None,
    headers: Mapping[str, object] | None = None,
    destination: str | None = None,
    java: bool = False,
) -> dict[str, object]:
    """The name -> value mapping pulsar-jms's broker filter shows a selector for a message.

    With `java=True` numbers keep their declared Java type as `msgfilter.java.types` wrappers
    (`Int`, `Short`, `Float`, ...), for the `activemq` dialect, which reproduces the
    broker's typed comparisons and arithmetic; otherwise they are plain `int`/`float`.

    `props` are the message's Pulsar properties (strings; a value that is already not a
    string is kept as it is). Each property is decoded by its ``_jsmtype`` companion, or
    by `SYSTEM_PROPERTY_TYPES`, or kept as a string; companions stay visible as strings,
    as on the broker. The derived header fields are added:

    - ``JMSPriority``: the property as an int, 4 when absent or not an integer;
    - ``JMSDeliveryMode``: ``'PERSISTENT'`` unless the property holds 1 (or another int
      but 2): ``'NON_PERSISTENT'``;
    - ``JMSCorrelationID``: the property Base64-decoded to text;
    - ``JMSXDeliveryCount``: 0; ``JMSTimestamp``: ``headers["JMSTimestamp"]`` or 0;
    - ``JMSXGroupID``: ``headers["JMSXGroupID"]`` (the partition key) or "";
    - ``JMSXGroupSeq``: the property (a long), else ``headers["JMSXGroupSeq"]`` (the
      sequence id as text), else "0";
    - ``JMSReplyTo``: ``queue://name`` or ``topic://name`` (property ``JMSReplyToType``);
    - ``JMSDestination``: `destination` (see `jms_destination`) when given.

    `headers` are header fields already in the form the selector sees (`Message.headers`;
    `pulsar_message` puts the Pulsar metadata there). Each wins over what the properties
    would give, except ``JMSXGroupSeq``, where a property wins as on the broker.

    With `names`, only those names are decoded (the identifiers a selector reads): a bad
    value elsewhere then goes unnoticed, as on the broker, which decodes a property only
    when the selector asks for it.

    Raises `JsmTypeError` when a decoded value does not parse as its declared type.

        >>> decode_properties({"size": "3", "size_jsmtype": "int"}, names=["size", "JMSPriority"])
        {'size': 3, 'JMSPriority': 4}
    """
    heads: Mapping[str, object] = headers if headers is not None else _NO_HEADERS
    out: dict[str, object] = {}
    wanted = props.keys() | heads.keys() | DERIVED_HEADERS if names is None else names
    for name in wanted:
        value = decode_name(props, heads, name, destination, java)
        if value is not ABSENT:
            out[name] = value
    return out


def decode_name(
    props: Mapping[str, object],
    heads: Mapping[str, object],
    name: str,
    destination: str | None,
    java: bool,
) -> object:
    """What the broker's selector sees under `name` (`ABSENT` for nothing); `java` as in
    `decode_properties`."""
    if heads and name in heads and name != "JMSXGroupSeq":
        return heads[name]
    if name in DERIVED_HEADERS:
        value = _header(name, props, heads, destination)
        return ABSENT if value is None else value
    raw = props.get(name, ABSENT)
    # Any str is text, a subclass too (a hand-built message's): the typed evaluators'
    # memo, keyed by text, cannot tell them apart.
    if isinstance(raw, str):
        declared = props.get(name + TYPE_SUFFIX)
        if not isinstance(declared, str):
            declared = SYSTEM_TYPE_OF.get(name)
        if declared is not None and declared != "string":
            return typed_value(raw, declared, name, java)
    return raw



def typed_value(raw: str, declared: str, name: str, java: bool) -> object:
    """`raw` decoded as `declared`; with `java`, numbers as `msgfilter.java.types` wrappers."""
    value = decode_value(raw, declared, name)
    if java and declared in jtypes.BY_NAME and value is not None:
        return jtypes.java(declared, value)
    return value


#: How a typed evaluator (`msgfilter.selector.SelectorFilter.typed_matches`) reads
#: pulsar-jms messages: derived headers and system-typed names through `Reads.read`.
