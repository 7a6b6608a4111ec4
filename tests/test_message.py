"""msgfilter.message: one namespace a filter reads, and the read-only reading interface
(`property_dict`, `header_dict`, `view_dict`, `adopt`, `as_mapping`) other modules use."""

from __future__ import annotations

import dataclasses
from collections import OrderedDict

import pytest

from msgfilter import Message
from msgfilter.message import KEYS_PROPERTY, TAGS_PROPERTY, as_mapping


def test_the_view_is_properties_then_headers_then_tags_and_keys() -> None:
    m = Message({"a": 1, "JMSPriority": 1}, {"JMSPriority": 9}, tags="T", keys=["k1", "k2"])
    assert dict(m.view) == {"a": 1, "JMSPriority": 9, TAGS_PROPERTY: "T", KEYS_PROPERTY: "k1 k2"}
    assert m.get("JMSPriority") == 9 and m.get("missing") is None and m.get("x", 5) == 5
    # A property named TAGS or KEYS wins over the message's tag and keys.
    own = Message({TAGS_PROPERTY: "p", KEYS_PROPERTY: "q"}, tags="T", keys=["k"])
    assert own.get(TAGS_PROPERTY) == "p" and own.get(KEYS_PROPERTY) == "q"


def test_the_reading_interface_is_the_dicts_behind_the_views() -> None:
    m = Message({"a": 1}, {"h": 2}, tags="T")
    assert m.property_dict == dict(m.properties) == {"a": 1}
    assert m.header_dict == dict(m.headers) == {"h": 2}
    assert m.view_dict == dict(m.view)
    # The message keeps copies: the caller's dicts may change afterwards.
    props = {"a": 1}
    kept = Message(props)
    props["a"] = 2
    assert kept.get("a") == 1


def test_messages_are_frozen_and_their_views_read_only() -> None:
    m = Message({"a": 1})
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.tags = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        m.properties["a"] = 2  # type: ignore[index]
    with pytest.raises(TypeError):
        m.view["b"] = 2  # type: ignore[index]
    assert m == Message({"a": 1}) and m != Message({"a": 2})


def test_adopt_is_the_same_message_without_the_copies() -> None:
    props, heads = {"a": 1, "b": "x"}, {"JMSPriority": 4}
    adopted = Message.adopt(props, heads, ("k",))
    built = Message(props, heads, keys=("k",))
    assert adopted == built
    assert dict(adopted.view) == dict(built.view) == adopted.view_dict
    assert dict(adopted.properties) == props and dict(adopted.headers) == heads
    assert adopted.property_dict is props and adopted.tags is None
    bare = Message.adopt({"a": 1}, {})
    assert bare == Message({"a": 1}) and bare.view_dict == {"a": 1}


def test_as_mapping_reads_anything_and_never_fails() -> None:
    m = Message({"a": 1}, {"h": 2})
    assert as_mapping(m) is m.view_dict
    plain = {"a": 1}
    assert as_mapping(plain) is plain
    ordered = OrderedDict(a=1)
    assert as_mapping(ordered) is ordered
    for odd in (None, 42, "text", [("a", 1)], object()):
        assert dict(as_mapping(odd)) == {}
