"""pulsar-jms's property codec: typed JMS properties as DataStax pulsar-jms stores them in
Pulsar's string properties (read by `decode_value`, written by `encode_value`).

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

from collections.abc import Mapping
from types import MappingProxyType

from .. import java
from ..errors import FilterError

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

#: `SYSTEM_PROPERTY_TYPES` as a plain dict: the readers' fast path looks it up per read.
SYSTEM_TYPE_OF: dict[str, str] = dict(SYSTEM_PROPERTY_TYPES)

#: The types pulsar-jms writes in a ``_jsmtype`` companion.
KNOWN_TYPES: frozenset[str] = frozenset(
    {"boolean", "byte", "short", "int", "long", "float", "double", "string", "null"}
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
