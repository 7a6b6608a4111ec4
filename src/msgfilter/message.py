"""Messages as the filters see them: one mapping from names to values."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .lazyslots import LazySlot

#: RocketMQ keeps a message's tag in this property (MessageConst.PROPERTY_TAGS).
TAGS_PROPERTY = "TAGS"
#: RocketMQ keeps a message's keys in this property, space separated.
KEYS_PROPERTY = "KEYS"

#: The AMQP fields RabbitMQ 4.2's amqp-sql reads (`rabbit_amqp_util:
#: section_field_name_to_atom`), by their spec names with underscores, which are their
#: keys in an AMQP `Message`'s `headers`: of the header only `priority` (later versions
#: add `durable`), and all thirteen properties fields.
AMQP_HEADER_FIELDS: frozenset[str] = frozenset({"priority"})
AMQP_PROPERTIES_FIELDS: frozenset[str] = frozenset({
    "message_id", "user_id", "to", "subject", "reply_to", "correlation_id", "content_type",
    "content_encoding", "absolute_expiry_time", "creation_time", "group_id",
    "group_sequence", "reply_to_group_id",
})


def amqp_field_name(name: str) -> str:
    """The qualified name of AMQP field `name`: `header.priority`, `properties.subject`
    (what an amqp-sql filter's `identifiers` list, and the column a table holds it in)."""
    section = "header" if name in AMQP_HEADER_FIELDS else "properties"
    return f"{section}.{name}"


#: Qualified name (`properties.subject`) -> the field's spec name (`subject`).
AMQP_FIELDS_BY_NAME: dict[str, str] = {
    amqp_field_name(name): name for name in AMQP_HEADER_FIELDS | AMQP_PROPERTIES_FIELDS
}


@dataclass(frozen=True, slots=True)
class Message:
    """A message with its properties, header fields, RocketMQ tag and keys.

    Filters read one namespace: the properties, then the headers (a header wins over a
    property of the same name, as the broker's own header fields do), then `TAGS` and
    `KEYS` when the message has a tag or keys and no property of that name.
    """

    properties: Mapping[str, object] = field(default_factory=dict)
    headers: Mapping[str, object] = field(default_factory=dict)
    tags: str | None = None
    keys: tuple[str, ...] = ()
    view: Mapping[str, object] = field(init=False, repr=False, compare=False)
    #: The reading interface: the dicts behind `properties`, `headers` and `view`, which
    #: the index, the tag filters, the broker filters and generated evaluators read (a dict
    #: lookup costs half a mappingproxy's). Read-only by contract: nothing writes them.
    property_dict: dict[str, object] = field(init=False, repr=False, compare=False)
    header_dict: dict[str, object] = field(init=False, repr=False, compare=False)
    view_dict: dict[str, object] = field(init=False, repr=False, compare=False)

    def __init__(
        self,
        properties: Mapping[str, object] | None = None,
        headers: Mapping[str, object] | None = None,
        tags: str | None = None,
        keys: Iterable[str] = (),
    ) -> None:
        props = dict(properties or {})
        heads = dict(headers) if headers else _NO_HEADERS
        keys_t = tuple(keys)
        object.__setattr__(self, "properties", MappingProxyType(props))
        object.__setattr__(self, "headers", MappingProxyType(heads))
        object.__setattr__(self, "tags", tags)
        object.__setattr__(self, "keys", keys_t)
        merged = _view_of(props, heads, tags, keys_t)
        object.__setattr__(self, "view", MappingProxyType(merged))
        object.__setattr__(self, "property_dict", props)
        object.__setattr__(self, "header_dict", heads)
        object.__setattr__(self, "view_dict", merged)

    def get(self, name: str, default: object = None) -> object:
        """The value a filter reads under `name` (None when absent)."""
        return self.view_dict.get(name, default)

    @classmethod
    def adopt(
        cls, props: dict[str, object], heads: dict[str, object], keys: tuple[str, ...] = ()
    ) -> Message:
        """The Message of `props` and `heads` (no tag), taking the dicts as they are:
        for readers that have just built them and hand them over (`pulsar_message`, for
        each message of a stored entry), where `__init__`'s copies and its attribute
        writes through the frozen dataclass's ``object.__setattr__`` were most of a
        message's cost. Same result as ``Message(props, heads, keys=keys)``."""
        self = _new(cls)
        # `properties`, `headers` and `view` are made when first read (LazySlot below).
        _set_tags(self, None)
        _set_keys(self, keys)
        _set_props(self, props)
        _set_heads(self, heads or _NO_HEADERS)
        _set_merged(self, _view_of(props, heads, None, keys))
        return self


def _view_of(
    props: dict[str, object], heads: dict[str, object], tags: str | None, keys: tuple[str, ...]
) -> dict[str, object]:
    """The dict a filter reads: the properties, the headers over them, then TAGS and KEYS
    where neither has that name. With nothing to merge, the properties dict itself (none
    of these dicts is ever written): one dict less per message for an evaluator to bring
    into cache."""
    if not heads and tags is None and not keys:
        return props
    merged = {**props, **heads}
    if tags is not None:
        merged.setdefault(TAGS_PROPERTY, tags)
    if keys:
        merged.setdefault(KEYS_PROPERTY, " ".join(keys))
    return merged


#: The headers of every message that has none (never written, like all these dicts):
#: messages without headers share it.
_NO_HEADERS: dict[str, object] = {}

# The slot setters of Message's fields (its frozen __setattr__ refuses writes): calling
# them directly costs half of object.__setattr__ by name.
_new = object.__new__
_set_tags = Message.__dict__["tags"].__set__
_set_keys = Message.__dict__["keys"].__set__
_set_props = Message.__dict__["property_dict"].__set__
_set_heads = Message.__dict__["header_dict"].__set__
_set_merged = Message.__dict__["view_dict"].__set__


def _proxy_of(source: str) -> Callable[[Message], Mapping[str, object]]:
    def make(message: Message) -> Mapping[str, object]:
        return MappingProxyType(getattr(message, source))

    return make


# `adopt` leaves the read-only views unset: each is made from its dict when first read.
LazySlot(Message, "properties", _proxy_of("property_dict"))
LazySlot(Message, "headers", _proxy_of("header_dict"))
LazySlot(Message, "view", _proxy_of("view_dict"))


def as_mapping(message: Any) -> Mapping[str, object]:
    """The name -> value mapping a filter reads from `message`: the one home of that rule
    (evaluators, the index and the tag filters all read a message through it).

    A `Message` reads as `view_dict` (read-only by contract), a mapping as itself.
    Anything that is neither reads as a message without properties: evaluation never
    fails because of what it is given.
    """
    if type(message) is dict:
        return message
    if isinstance(message, Message):
        return message.view_dict
    if isinstance(message, Mapping):
        return message
    return _EMPTY


_EMPTY: Mapping[str, object] = MappingProxyType({})


def needs_mapping(message: Any) -> bool:
    """Whether `message` must go through `as_mapping` before a filter can read it: true
    for anything that is not a dict, a Message or another mapping."""
    return not isinstance(message, (dict, Message, Mapping))
