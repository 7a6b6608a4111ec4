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
import math
import re
import struct
import unicodedata
from collections.abc import Callable, Collection, Mapping
from fractions import Fraction
from types import MappingProxyType

from . import jtypes
from .errors import FilterError
from .message import Message

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
        "byte": (-(2**7), 2**7 - 1),
        "short": (-(2**15), 2**15 - 1),
        "int": (-(2**31), 2**31 - 1),
        "long": (-(2**63), 2**63 - 1),
    }
)
_JAVA_TRIM = "".join(map(chr, range(0x21)))
_DECIMAL = re.compile(
    r"[+-]?(?:NaN|Infinity|(?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?)"
)
_HEX = re.compile(
    r"(?P<sign>[+-]?)0[xX](?:(?P<whole>[0-9a-fA-F]+)\.?|(?P<int>[0-9a-fA-F]*)\.(?P<frac>[0-9a-fA-F]+))"
    r"[pP](?P<exp>[+-]?[0-9]+)[fFdD]?"
)
_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")
_F32_MAX = _F32.unpack(b"\xff\xff\x7f\x7f")[0]
#: Halfway between the largest float and 2**128: from here on Java rounds to infinity.
_F32_OVERFLOW_TIE = 2.0**128 - 2.0**103


def _parse_integer(text: str, type_name: str) -> int | None:
    """`Integer.parseInt` and its siblings, or None where Java throws."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body:
        return None
    if not (body.isascii() and body.isdigit()):
        # Java's Character.digit takes any Unicode decimal digit, one UTF-16 unit each:
        # characters above U+FFFF arrive as two surrogates, which are not digits.
        if not body.isdecimal() or max(body) > "\uffff":
            return None
        body = "".join(str(unicodedata.decimal(ch)) for ch in body)
    # Leading zeros are legal in any number; without them the length bounds the value, and
    # int() is never handed thousands of digits.
    body = body.lstrip("0") or "0"
    if len(body) > 20:
        return None
    value = int(body)
    if text[0] == "-":
        value = -value
    low, high = _INT_RANGES[type_name]
    return value if low <= value <= high else None


def _exact(text: str) -> Fraction:
    """The exact rational value of a number `_parse_floating` accepted (finite forms only)."""
    hexa = _HEX.fullmatch(text)
    if hexa is None:
        found = _DECIMAL.fullmatch(text)
        assert found is not None and found["num"] is not None
        sign = -1 if text.startswith("-") else 1
        return sign * Fraction(found["num"])
    whole = hexa["whole"] or ""
    digits = whole or (hexa["int"] or "") + hexa["frac"]
    shift = 0 if whole else len(hexa["frac"])
    value = Fraction(int(digits or "0", 16)) * Fraction(2) ** (int(hexa["exp"]) - 4 * shift)
    return -value if hexa["sign"] == "-" else value


def _float32(x: float) -> float:
    """`x` rounded once to float32 (nearest, ties to even), overflowing to infinity."""
    try:
        return float(_F32.unpack(_F32.pack(x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


def _next_float32(f: float, toward: float) -> float:
    """The float32 next to `f` in the direction of `toward` (f is a float32 value)."""
    if math.isinf(f):
        return math.copysign(_F32_MAX, f)
    if f == 0.0:
        return math.copysign(_F32.unpack(_U32.pack(1))[0], toward)
    bits = _U32.unpack(_F32.pack(f))[0]
    bits += 1 if abs(toward) > abs(f) else -1
    return float(_F32.unpack(_U32.pack(bits))[0])


def _to_float32(d: float, exact: Callable[[], Fraction]) -> float:
    """`d` rounded to float32 as if the decimal text (value `exact()`) were rounded directly.

    Rounding the text to a double first and then to float32 rounds twice; the two differ only
    when the double lands exactly halfway between two float32 values, and then the exact
    value decides.
    """
    if math.isnan(d) or math.isinf(d):
        return d
    f = _float32(d)
    if f == d:
        return f
    g = _next_float32(f, d)
    middle = math.copysign(_F32_OVERFLOW_TIE, d) if math.isinf(f) or math.isinf(g) else (f + g) / 2
    if middle != d:
        return f
    x = exact()
    if x == Fraction(d):
        return f
    return max(f, g) if x > Fraction(d) else min(f, g)


def _parse_floating(text: str, type_name: str) -> float | None:
    """`Double.parseDouble` / `Float.parseFloat`, or None where Java throws."""
    text = text.strip(_JAVA_TRIM)
    hexa = _HEX.fullmatch(text)
    if hexa is not None:
        body = text[:-1] if text[-1] in "fFdD" else text
        try:
            d = float.fromhex(body)
        except OverflowError:
            d = -math.inf if hexa["sign"] == "-" else math.inf
    elif _DECIMAL.fullmatch(text):
        body = text[:-1] if text[-1] in "fFdD" else text
        d = float(body)
    else:
        return None
    if type_name == "float":
        return _to_float32(d, lambda: _exact(text))
    return d


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
        return value.lower() == "true"
    if type_name in _INT_RANGES:
        number = _parse_integer(value, type_name)
        if number is None:
            raise JsmTypeError(name, type_name, value)
        return number
    if type_name in ("float", "double"):
        real = _parse_floating(value, type_name)
        if real is None:
            raise JsmTypeError(name, type_name, value)
        return real
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
        parsed = _parse_integer(value, "int")
        if parsed is not None:
            return parsed
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
    get = props.get
    for name in wanted:
        if heads and name in heads and name != "JMSXGroupSeq":
            out[name] = heads[name]
        elif name in DERIVED_HEADERS:
            value = _header(name, props, heads, destination)
            if value is not None:
                out[name] = value
        else:
            # The common case, inlined: a plain property, perhaps with a companion type.
            raw = get(name, _ABSENT)
            if raw is _ABSENT:
                continue
            if type(raw) is str:
                declared = get(name + TYPE_SUFFIX)
                if type(declared) is not str:
                    declared = _SYSTEM_TYPES.get(name)
                if declared is not None and declared != "string":
                    raw = decode_value(raw, declared, name)
                    if java and declared in jtypes.BY_NAME and raw is not None:
                        raw = jtypes.java(declared, raw)
            out[name] = raw
    return out


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
    heads: dict[str, object] = {}
    if partition_key is not None:
        heads["JMSXGroupID"] = partition_key
    if event_time:
        heads["JMSTimestamp"] = event_time
    if sequence_id is not None:
        heads["JMSXGroupSeq"] = str(sequence_id)
    return Message(
        properties=properties,
        headers=heads,
        keys=() if partition_key is None else (partition_key,),
    )


# --- Writing typed properties (the client side) --------------------------------------------


def _java_double_text(value: float) -> str:
    """Java's (JDK 19+) `Double.toString`: the shortest digits, at least two, that read back."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    digits, exponent = _shortest(repr(abs(value)))
    if len(digits) == 1:
        # Java never writes fewer than two digits: it takes the closest two-digit decimal.
        digits, exponent = _shortest(f"{abs(value):.1e}")
    sign = "-" if value < 0 else ""
    return sign + _java_layout(digits, exponent)


def _java_float_text(value: float) -> str:
    """Java's `Float.toString` for a float32 `value`."""
    if math.isnan(value) or math.isinf(value) or value == 0.0:
        return _java_double_text(value)
    # From two digits up, as Java: the first length whose closest decimal reads back.
    for precision in range(1, 9):
        text = f"{abs(value):.{precision}e}"
        if _float32(float(text)) == abs(value):
            break
    digits, exponent = _shortest(text)
    return ("-" if value < 0 else "") + _java_layout(digits, exponent)


def _shortest(text: str) -> tuple[str, int]:
    """(significant digits, decimal exponent of the first one) of a positive number's text."""
    mantissa, _, exp = text.partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    significant = digits.lstrip("0")
    exponent = int(exp or 0) + len(whole) - 1 - (len(digits) - len(significant))
    return significant.rstrip("0") or "0", exponent


def _java_layout(digits: str, exponent: int) -> str:
    """Java's layout: plain between 1e-3 and 1e7, else ``d.dddE<n>``."""
    if -3 <= exponent < 7:
        if exponent >= 0:
            whole = digits[: exponent + 1].ljust(exponent + 1, "0")
            frac = digits[exponent + 1 :] or "0"
        else:
            whole, frac = "0", "0" * (-exponent - 1) + digits
        return f"{whole}.{frac}"
    return f"{digits[0]}.{digits[1:] or '0'}E{exponent}"


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
            return _java_double_text(float(value)), type_name
        return _java_float_text(_float32(float(value))), type_name
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
