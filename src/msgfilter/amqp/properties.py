"""AMQP property filter expressions as RabbitMQ 4.1+ evaluates them
(`rabbit_amqp_filter_prop.erl`, AMQP Filter Expressions working draft 09, section 4).

A property filter is one or two maps: `properties` (the AMQP properties fields, by their
spec names) and `application_properties`. A message passes when every entry of every map
matches: the message has the field (an application property must be present), and

- a reference value None (AMQP null; application properties only) matches any value;
- a string `&p:text` matches a string or binary starting with `text`, `&s:text` one
  ending with it (bytewise, UTF-8); `&&text` is the string `&text`; any other string
  starting with `&` is an error;
- anything else is Erlang's `==`: numbers by value (`5 == 5.0`), strings and binaries by
  bytes, booleans only to booleans.

RabbitMQ takes each properties field with its AMQP type only: `message-id` and
`correlation-id` an int (ulong), a UUID, bytes (binary) or a string; `user-id` bytes;
`to`, `subject`, `reply-to`, `group-id`, `reply-to-group-id` strings (with the `&`
modifiers); `content-type` and `content-encoding` strings taken as symbols (no
modifiers); `absolute-expiry-time` and `creation-time` timestamps (int milliseconds or an
aware datetime); `group-sequence` an int (uint). Each map holds 1 to 16 entries.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..errors import FilterError
from ..filter import Filter
from ..semantics import amqp
from ..semantics.model import ValueModel

#: The dialect name of `PropertyFilter`.
DIALECT = "amqp-property"
#: Its value model.
MODEL = ValueModel.AMQP_PROPERTY
#: RabbitMQ's limit on the entries of one filter map ([filtex-v1.0-wd09 7.1]).
MAX_FIELDS = 16

_ULONG = 2**64
_UINT = 2**32
_STRINGS = frozenset({"to", "subject", "reply_to", "group_id", "reply_to_group_id"})
_SYMBOLS = frozenset({"content_type", "content_encoding"})
_TIMES = frozenset({"absolute_expiry_time", "creation_time"})
_IDS = frozenset({"message_id", "correlation_id"})
_FIELDS = _STRINGS | _SYMBOLS | _TIMES | _IDS | {"user_id", "group_sequence"}


class Affix:
    """A `&p:` or `&s:` reference value."""

    __slots__ = ("prefix", "text")

    def __init__(self, prefix: bool, text: bytes) -> None:
        self.prefix, self.text = prefix, text

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Affix) and self.prefix == other.prefix
                and self.text == other.text)

    def __hash__(self) -> int:
        return hash((self.prefix, self.text))

    def __repr__(self) -> str:
        return ("&p:" if self.prefix else "&s:") + self.text.decode("utf-8", "replace")

    def matches(self, value: object) -> bool:
        if type(value) is str:
            value = amqp.as_bytes(value)
        if type(value) is not bytes:
            return False
        return value.startswith(self.text) if self.prefix else value.endswith(self.text)


def _modified(text: str, where: str) -> Any:
    """A string reference value with RabbitMQ's `&` modifiers read."""
    if text.startswith("&p:"):
        return Affix(True, text[3:].encode("utf-8"))
    if text.startswith("&s:"):
        return Affix(False, text[3:].encode("utf-8"))
    if text.startswith("&&"):
        return text[1:].encode("utf-8")
    if text.startswith("&"):
        raise FilterError(
            f"{where}: a string starting with '&' must be '&p:', '&s:' or '&&' ({text!r})"
        )
    return text.encode("utf-8")


def _timestamp(value: object, where: str) -> int:
    if isinstance(value, datetime):
        millis = amqp.value_of(value)
        if millis is None:
            raise FilterError(f"{where}: a timestamp datetime must be timezone-aware")
        return int(millis)
    if type(value) is int and -(2**63) <= value < 2**63:
        return value
    raise FilterError(f"{where}: a timestamp is int milliseconds or an aware datetime")


def _property(name: str, value: object) -> Any:
    where = f"properties[{name!r}]"
    key = name.replace("-", "_")
    if key not in _FIELDS:
        raise FilterError(f"{where}: not an AMQP properties field")
    if key in _IDS:
        if type(value) is int and 0 <= value < _ULONG:
            return value
        if isinstance(value, uuid.UUID):
            return value.bytes
        if isinstance(value, bytes):
            return value
        if isinstance(value, str):
            return _modified(value, where)
        raise FilterError(f"{where}: an int (ulong), UUID, bytes or str")
    if key == "user_id":
        if isinstance(value, bytes):
            return value
        raise FilterError(f"{where}: bytes (AMQP binary)")
    if key in _STRINGS:
        if isinstance(value, str):
            return _modified(value, where)
        raise FilterError(f"{where}: a str")
    if key in _SYMBOLS:
        if isinstance(value, str) and value.isascii():
            return value.encode("ascii")
        raise FilterError(f"{where}: an ASCII str (AMQP symbol)")
    if key in _TIMES:
        return _timestamp(value, where)
    if type(value) is int and 0 <= value < _UINT:
        return value
    raise FilterError(f"{where}: an int (uint)")


def _application(name: str, value: object) -> Any:
    where = f"application_properties[{name!r}]"
    if not isinstance(name, str):
        raise FilterError(f"{where}: keys are str")
    if isinstance(value, str):
        return _modified(value, where)
    if value is None:
        return None
    if isinstance(value, datetime):
        return _timestamp(value, where)
    if isinstance(value, bool | int | float | bytes | uuid.UUID) and (
        amqp.value_of(value) is not None
    ):
        return amqp.value_of(value)
    raise FilterError(f"{where}: a str, bytes, bool, int, float, UUID, datetime or None")


def _entries(given: Mapping[str, object] | None, what: str) -> Mapping[str, object] | None:
    if given is None:
        return None
    if not isinstance(given, Mapping) or not 1 <= len(given) <= MAX_FIELDS:
        raise FilterError(f"{what}: a mapping of 1 to {MAX_FIELDS} entries")
    return given


class PropertyFilter(Filter):
    """A compiled AMQP property filter (see the module); build one with
    `property_filter`. Messages are read as by `amqp-sql`: a `msgfilter.Message` with
    application properties in `properties` and the properties fields in `headers`
    (underscore names), or a mapping of application properties."""

    __slots__ = ("_given", "application_properties", "properties")

    #: The properties-filter entries: field name (underscores) -> reference value.
    properties: tuple[tuple[str, Any], ...]
    #: The application-properties-filter entries: key -> reference value.
    application_properties: tuple[tuple[str, Any], ...]
    _given: tuple[dict[str, object] | None, dict[str, object] | None]

    def __init__(
        self,
        properties: Mapping[str, object] | None = None,
        application_properties: Mapping[str, object] | None = None,
    ) -> None:
        props = _entries(properties, "properties")
        apps = _entries(application_properties, "application_properties")
        if props is None and apps is None:
            raise FilterError("a property filter needs properties or application_properties")
        fields = tuple(
            (name.replace("-", "_"), _property(name, value))
            for name, value in (props or {}).items()
        )
        entries = tuple((name, _application(name, value)) for name, value in (apps or {}).items())
        names = {f"properties.{name}" for name, _ in fields} | {name for name, _ in entries}
        super().__init__(
            self._text(fields, entries), DIALECT, frozenset(names), self._matches,
            self._evaluate, model=MODEL,
        )
        object.__setattr__(self, "properties", fields)
        object.__setattr__(self, "application_properties", entries)
        object.__setattr__(self, "_given", (
            None if props is None else dict(props), None if apps is None else dict(apps)
        ))

    @staticmethod
    def _text(fields: tuple[tuple[str, Any], ...], entries: tuple[tuple[str, Any], ...]) -> str:
        parts = []
        if fields:
            parts.append("properties: " + ", ".join(f"{k}={v!r}" for k, v in fields))
        if entries:
            parts.append("application_properties: " + ", ".join(f"{k}={v!r}" for k, v in entries))
        return "; ".join(parts)

    def _matches(self, message: Any) -> bool:
        try:
            heads = amqp.fields(message)
            for name, reference in self.properties:
                if not _match(reference, amqp.value_of(heads.get(name))):
                    return False
            apps = amqp.application_properties(message)
            for key, reference in self.application_properties:
                found = amqp.value_of(apps.get(key))
                # An application property must be present, whatever the reference value.
                if found is None or not _match(reference, found):
                    return False
            return True
        except Exception:
            # Odd message data never raises out of a filter.
            return False

    def _evaluate(self, message: Any) -> bool:
        return self._matches(message)

    def unparse(self) -> str:
        return self.text

    def _key(self) -> object:
        return (self.properties, self.application_properties)

    def __reduce__(self) -> tuple[Any, ...]:
        # Not text compiled through the registry: rebuilt from what it was given.
        return (_rebuild, self._given)


def _match(reference: Any, value: object) -> bool:
    if reference is None:
        return True
    if value is None:
        return False
    if isinstance(reference, Affix):
        return reference.matches(value)
    return amqp.eq(reference, value)


def _rebuild(
    properties: dict[str, object] | None, application_properties: dict[str, object] | None
) -> PropertyFilter:
    return PropertyFilter(properties, application_properties)


def property_filter(
    properties: Mapping[str, object] | None = None,
    application_properties: Mapping[str, object] | None = None,
) -> PropertyFilter:
    """The filter of an AMQP property filter expression (RabbitMQ 4.1+): `properties`
    keyed by the AMQP properties field names (`message-id` or `message_id`, ...),
    `application_properties` by application property key; FilterError for what RabbitMQ
    refuses (an unknown field, a value of the wrong AMQP type, a bad `&` modifier, an
    empty map or one of more than 16 entries)."""
    return PropertyFilter(properties, application_properties)
