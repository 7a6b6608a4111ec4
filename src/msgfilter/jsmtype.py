"""Typed JMS properties as DataStax pulsar-jms stores them in Pulsar's string properties.

A Pulsar property is a string. pulsar-jms writes a typed JMS property ``name`` as the value's
Java ``toString()`` and records its type in a companion property ``name + "_jsmtype"`` (the
typo is theirs and is part of the wire format). The broker-side filter decodes them back
before it evaluates a selector; this module does the same, with Java's parsing rules:

============  ==========================================  ==============================
``_jsmtype``  parsed as (Java)                            Python value
============  ==========================================  ==============================
(missing)     the text itself                             ``str``
``string``    the text itself                             ``str``
``boolean``   ``Boolean.parseBoolean``: "true" in any     ``bool`` (never fails)
              case is TRUE, anything else FALSE
``byte``      ``Byte.parseByte`` (-128..127)              ``int``
``short``     ``Short.parseShort`` (-32768..32767)        ``int``
``int``       ``Integer.parseInt`` (32-bit)               ``int``
``long``      ``Long.parseLong`` (64-bit)                 ``int``
``float``     ``Float.parseFloat``, rounded to 32 bits    ``float``
``double``    ``Double.parseDouble``                      ``float``
``null``      no value (``setObjectProperty(n, null)``)   ``None``
anything      unknown types read as strings, as the       ``str``
else          broker does
============  ==========================================  ==============================

Integers accept an optional sign and decimal digits only (no spaces, no ``_``, no ``0x``);
floating point accepts what Java does: surrounding control characters and spaces, ``NaN``,
``Infinity``, hexadecimal ``0x1.8p1``, a trailing ``f``/``F``/``d``/``D``; not ``inf`` or
``nan`` in lower case. A value that does not parse raises `JsmTypeError`: pulsar-jms's
filter then fails on the message, and its broker REJECTs it (`msgfilter.broker` does the
same for that message).

Properties that pulsar-jms writes without a companion have fixed types on the broker
(`SYSTEM_PROPERTY_TYPES`), and the selector sees some JMS header fields that the broker
derives (`decode_properties` adds them): ``JMSPriority`` 4 and ``JMSDeliveryMode``
``'PERSISTENT'`` when absent, ``JMSCorrelationID`` Base64-decoded, ``JMSXDeliveryCount``
always 0, and the fields taken from Pulsar metadata (see `pulsar_message`).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Collection, Iterator, Mapping
from types import MappingProxyType

from . import java, jtypes
from .backends.python.generator import TypedReads
from .errors import FilterError
from .message import (
    KEYS_PROPERTY,
    TAGS_PROPERTY,
    Message,
    _set_heads,
    _set_keys,
    _set_merged,
    _set_props,
    _set_tags,
)
from .message import _new as _new_message

#: Suffix of the companion property that holds a property's type.
TYPE_SUFFIX = "_jsmtype"

#: Types of the properties pulsar-jms writes without a companion (its SYSTEM_PROPERTIES_TYPES).
#: A companion, when present, still wins.
SYSTEM_PROPERTY_TYPES: Mapping[str, str] = MappingProxyType(
    {
        "JMSPriority": "int",
        "JMSExpiration": "long",
        "JMSXDeliveryCount": "int",
        "JMSDeliveryTime": "long",
        "JMSType": "string",
        "JMSDeliveryMode": "int",
        "JMSMessageId": "string",
        "JMSXGroupSeq": "long",
    }
)

_SYSTEM_TYPES = dict(SYSTEM_PROPERTY_TYPES)
_NO_HEADERS: Mapping[str, object] = MappingProxyType({})
_ABSENT = object()

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


class JsmTypeError(FilterError):
    """A typed property's text does not parse as its declared type.

    `name` is the property, `type_name` its declared type, `value` the text. pulsar-jms's
    broker filter fails on such a message and REJECTs it.
    """

    def __init__(self, name: str, type_name: str, value: str, reason: str = "") -> None:
        self.name = name
        self.type_name = type_name
        self.value = value
        self.reason = reason
        what = f"property {name!r}" if name else "value"
        detail = f": {reason}" if reason else ""
        super().__init__(f"{what} = {value!r} is not a valid Java {type_name}{detail}")

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.name, self.type_name, self.value, self.reason))


# --- Java number parsing -------------------------------------------------------------------

_INT_RANGES: Mapping[str, tuple[int, int]] = MappingProxyType(
    {
        name: (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        for name, bits in java.INTEGER_BITS.items()
    }
)


def decode_value(value: str, type_name: str | None, name: str = "") -> object:
    """The Python value of one property's text `value` declared as `type_name`.

    `type_name` None means no companion (a string). Raises `JsmTypeError` (naming `name`)
    when the text does not parse as the declared type.

        >>> decode_value("42", "int"), decode_value("TRUE", "boolean"), decode_value("x", None)
        (42, True, 'x')
    """
    if type_name is None or type_name == "string":
        return value
    if type_name == "boolean":
        return java.parse_boolean(value)
    try:
        if type_name in _INT_RANGES:
            return java.parse_integer(value, java.INTEGER_BITS[type_name])
        if type_name == "float":
            return java.parse_float(value)
        if type_name == "double":
            return java.parse_double(value)
    except java.JavaNumberFormatError:
        raise JsmTypeError(name, type_name, value) from None
    if type_name == "null":
        return None
    return value


# --- The selector's view of a pulsar-jms message -------------------------------------------


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
            return java.parse_int(value)
        except java.JavaNumberFormatError:
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

    With `java=True` numbers keep their declared Java type as `msgfilter.jtypes` wrappers
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
        value = _decode_name(props, heads, name, destination, java)
        if value is not _ABSENT:
            out[name] = value
    return out


def _decode_name(
    props: Mapping[str, object],
    heads: Mapping[str, object],
    name: str,
    destination: str | None,
    java: bool,
) -> object:
    """What the broker's selector sees under `name` (`_ABSENT` for nothing)."""
    if heads and name in heads and name != "JMSXGroupSeq":
        return heads[name]
    if name in DERIVED_HEADERS:
        value = _header(name, props, heads, destination)
        return _ABSENT if value is None else value
    raw = props.get(name, _ABSENT)
    if type(raw) is str:
        declared = props.get(name + TYPE_SUFFIX)
        if type(declared) is not str:
            declared = _SYSTEM_TYPES.get(name)
        if declared is not None and declared != "string":
            return _typed(raw, declared, name, java)
    return raw


def _typed(raw: str, declared: str, name: str, java: bool) -> object:
    value = decode_value(raw, declared, name)
    if java and declared in jtypes.BY_NAME and value is not None:
        return jtypes.java(declared, value)
    return value


#: How a typed evaluator (`msgfilter.selector.SelectorFilter.typed_matches`) reads
#: pulsar-jms messages: derived headers and system-typed names through `Reads.read`.
#: ``TAGS`` and ``KEYS`` too: `Message.view` shows a message's tag and keys under them,
#: the broker does not.
TYPED_READS = TypedReads(
    DERIVED_HEADERS | SYSTEM_PROPERTY_TYPES.keys() | {TAGS_PROPERTY, KEYS_PROPERTY},
    TYPE_SUFFIX,
)


class DecodeMemo(dict[str, dict[str, object]]):
    """Decoded typed values by declared type, then by text: ``memo[type].get(text)``.

    Looked up with the two strings as they are: no (type, text) tuple is built per read,
    which in a typed evaluator costs more than the lookups. A type it does not hold reads
    as an empty dict (not stored)."""

    __slots__ = ("size",)

    def __init__(self) -> None:
        super().__init__()
        #: How many values it holds, over all types.
        self.size = 0

    def __missing__(self, declared: str) -> dict[str, object]:
        return {}

    def remember(self, declared: str, raw: str, value: object, limit: int) -> None:
        """Keep `value` for (`declared`, `raw`), starting over once `limit` are kept."""
        if self.size >= limit:
            self.clear()
            self.size = 0
        by_text = self.get(declared)
        if by_text is None:
            by_text = self[declared] = {}
        by_text[raw] = value
        self.size += 1


class Reads:
    """The `R` a typed evaluator reads one decision's messages through (see
    `msgfilter.backends.python.generator.TypedReads`): the reader's memo, the
    destination, and `failed`, the name whose typed value did not parse (set by the
    read that raised; the caller resets it); `raised` stays True once any read raised."""

    __slots__ = ("_java", "_reader", "destination", "failed", "memo", "raised")

    def __init__(self, reader: TypedReader, destination: str | None) -> None:
        self._reader = reader
        self._java = reader._java
        self.memo = reader._memo
        self.destination = destination
        self.failed: str | None = None
        self.raised = False

    def read(self, props: Mapping[str, object], heads: Mapping[str, object], name: str) -> object:
        """What the broker's selector sees under `name` (None for nothing)."""
        try:
            value = _decode_name(props, heads, name, self.destination, self._java)
        except JsmTypeError:
            self.failed = name
            self.raised = True
            raise
        return None if value is _ABSENT else value

    def decode(self, declared: str, raw: str, name: str) -> object:
        """`raw` decoded as `declared`, remembered in the memo (JsmTypeError if it does
        not parse)."""
        try:
            return self._reader.decoded(raw, declared, name)
        except JsmTypeError:
            self.failed = name
            self.raised = True
            raise


class TypedReader:
    """Reads pulsar-jms messages for one set of compiled selectors, decoding lazily.

    `view(message)` is the mapping a selector reads: a typed property is decoded only
    when the selector reads it (pulsar-jms's broker does the same), so a bad typed value
    that evaluation never reaches goes unnoticed. Decoded values are remembered per reader
    by (type, text), so a value seen before costs one lookup. A value that does not parse
    raises `JsmTypeError` from the read, which makes the evaluation fail, and the view
    remembers it in `TypedView.failed`.

    One reader per compiled filter set (it is thread-safe: its memo only grows and is
    cleared when full); one view per message or reused with `TypedView.rebind`.
    """

    __slots__ = ("_companions", "_java", "_memo")

    #: Decoded values kept per reader before the memo starts over.
    MEMO_SIZE = 1 << 16

    def __init__(self, names: Collection[str], *, java: bool = False) -> None:
        # The names read as plain properties on the fast path, with their companions.
        self._companions = {n: n + TYPE_SUFFIX for n in names if n not in DERIVED_HEADERS}
        self._java = java
        self._memo = DecodeMemo()

    def reads(self, destination: str | None = None) -> Reads:
        """The `Reads` for typed evaluators judging messages sent to `destination`."""
        return Reads(self, destination)

    def view(
        self,
        message: Message,
        destination: str | None = None,
    ) -> TypedView:
        """The lazy view of `message` (its `properties` and `headers`)."""
        return TypedView(self, message.properties, message.headers, destination)

    def decoded(self, raw: str, declared: str, name: str) -> object:
        """`raw` decoded as `declared`, through the memo (JsmTypeError when it does not parse)."""
        memo = self._memo
        value = memo[declared].get(raw, _ABSENT)
        if value is _ABSENT:
            value = _typed(raw, declared, name, self._java)
            memo.remember(declared, raw, value, self.MEMO_SIZE)
        return value


class TypedView(Mapping[str, object]):
    """One message as a selector reads it through a `TypedReader` (see there)."""

    __slots__ = ("_companions", "_destination", "_heads", "_props", "_reader", "failed")

    def __init__(
        self,
        reader: TypedReader,
        props: Mapping[str, object],
        heads: Mapping[str, object],
        destination: str | None,
    ) -> None:
        self._reader = reader
        self._companions = reader._companions
        self._props = props
        # None when there are no headers: the fast path tests it once per read.
        self._heads = heads or None
        self._destination = destination
        #: The name whose typed value did not parse, once a read failed.
        self.failed: str | None = None

    def rebind(self, message: Message) -> None:
        """Make this view show `message` (one view object for a whole batch)."""
        self._props = message.properties
        self._heads = message.headers or None
        self.failed = None

    def get(self, name: str, default: object = None) -> object:
        companion = self._companions.get(name)
        heads = self._heads
        if companion is not None and (heads is None or name not in heads):
            # The common case: a plain property, perhaps with a companion type.
            props = self._props
            raw = props.get(name)
            if raw.__class__ is not str:
                return default if raw is None else raw
            declared = props.get(companion)
            if declared.__class__ is not str:
                declared = _SYSTEM_TYPES.get(name)
                if declared is None:
                    return raw
            if declared == "string":
                return raw
            value = self._reader._memo[declared].get(raw, _ABSENT)
            if value is not _ABSENT:
                return value
            try:
                return self._reader.decoded(raw, declared, name)
            except JsmTypeError:
                self.failed = name
                raise
        try:
            value = _decode_name(
                self._props, heads or _NO_HEADERS, name, self._destination, self._reader._java
            )
        except JsmTypeError:
            self.failed = name
            raise
        return default if value is _ABSENT else value

    def __getitem__(self, name: str) -> object:
        value = self.get(name, _ABSENT)
        if value is _ABSENT:
            raise KeyError(name)
        return value

    def __iter__(self) -> Iterator[str]:
        names = self._props.keys() | (self._heads or _NO_HEADERS).keys() | DERIVED_HEADERS
        return iter([n for n in names if self.get(n, _ABSENT) is not _ABSENT])

    def __len__(self) -> int:
        return sum(1 for _ in self)


def pulsar_message(
    properties: Mapping[str, str],
    *,
    partition_key: str | None = None,
    event_time: int | None = None,
    sequence_id: int | None = None,
) -> Message:
    """A `msgfilter.Message` for one Pulsar message (a whole entry or one of a batch).

    `properties` are kept as they are (undecoded strings). The metadata fields that
    pulsar-jms shows as JMS headers go into `Message.headers` under those names:
    ``JMSXGroupID`` = `partition_key`, ``JMSTimestamp`` = `event_time` (Pulsar leaves 0
    or no value when unset), ``JMSXGroupSeq`` = `sequence_id` as text. The partition key
    is also the message's key.
    """
    return adopted_pulsar_message(dict(properties), partition_key, event_time, sequence_id)


def adopted_pulsar_message(
    properties: dict[str, object],
    partition_key: str | None,
    event_time: int | None,
    sequence_id: int | None,
) -> Message:
    """`pulsar_message` taking `properties`, a dict its caller has just built and hands
    over (not copied: decoding a stored entry builds one per message).

    The Message's three dicts are built here in one pass, with its slots set directly
    (see `msgfilter.message`'s slot setters), where ``Message(...)`` would copy and merge
    them again: for a stored entry's thousand messages that was a tenth of decoding."""
    message = _new_message(Message)
    _set_tags(message, None)
    view = properties.copy()
    if partition_key is None:
        heads: dict[str, object] = {}
        _set_keys(message, ())
    else:
        heads = {"JMSXGroupID": partition_key}
        view["JMSXGroupID"] = partition_key
        keys = (partition_key,)
        _set_keys(message, keys)
    if event_time:
        heads["JMSTimestamp"] = view["JMSTimestamp"] = event_time
    if sequence_id is not None:
        heads["JMSXGroupSeq"] = view["JMSXGroupSeq"] = str(sequence_id)
    # Message's view: the headers win over the properties, KEYS only where no property
    # has that name (none of pulsar-jms's headers is named KEYS).
    if partition_key is not None and KEYS_PROPERTY not in view:
        view[KEYS_PROPERTY] = " ".join(keys)
    _set_props(message, properties)
    _set_heads(message, heads)
    _set_merged(message, view)
    return message


# --- Writing typed properties (the client side) --------------------------------------------


def encode_value(value: object, type_name: str | None = None) -> tuple[str | None, str | None]:
    """(text, type) as the pulsar-jms client writes `value`; type None means no companion.

    Without `type_name`: bool -> boolean, int -> long, float -> double, str -> no type,
    None -> (None, "null"). With one of the integer or float types, the value is written as
    that Java type (a float is rounded to 32 bits for ``float``). Raises FilterError for a
    value the type cannot hold.
    """
    if value is None:
        return None, "null"
    if type_name is None:
        if isinstance(value, bool):
            type_name = "boolean"
        elif isinstance(value, int):
            type_name = "long"
        elif isinstance(value, float):
            type_name = "double"
        elif isinstance(value, str):
            return value, None
        else:
            raise FilterError(f"no JMS property type holds a {type(value).__name__}")
    if type_name == "boolean" and isinstance(value, bool):
        return ("true" if value else "false"), type_name
    if type_name in _INT_RANGES and type(value) is int:
        low, high = _INT_RANGES[type_name]
        if low <= value <= high:
            return str(value), type_name
    if (
        type_name in ("float", "double")
        and isinstance(value, int | float)
        and not isinstance(value, bool)
    ):
        if type_name == "double":
            return java.double_text(float(value)), type_name
        return java.float_text(java.to_float32(float(value))), type_name
    if type_name == "string" and isinstance(value, str):
        return value, None
    raise FilterError(f"{value!r} cannot be written as a Java {type_name}")


def encode_properties(values: Mapping[str, object]) -> dict[str, str]:
    """Python values -> Pulsar string properties with ``_jsmtype`` companions.

    The inverse of `decode_properties` for plain properties: bool, int (as long), float (as
    double) and str; a None value writes only its ``"null"`` companion.
    """
    out: dict[str, str] = {}
    for name, value in values.items():
        text, type_name = encode_value(value)
        if text is not None:
            out[name] = text
        if type_name is not None:
            out[name + TYPE_SUFFIX] = type_name
    return out
