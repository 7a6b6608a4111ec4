"""AMQP property filters agree with RabbitMQ 4.2's `rabbit_amqp_filter_prop` on every
generated case (tests/amqp/data/property_cases.json), and behave as filters."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from msgfilter import FilterError, Message
from msgfilter.amqp import property_filter

from .cases import load, message, value

DATA = load("property_cases.json")
MESSAGES = [message(m) for m in load("sql_cases.json")["messages"]]


def _decoded(raw: dict[str, Any]) -> dict[str, Any] | None:
    return {k: value(v) for k, v in raw.items()} or None


def test_agrees_with_rabbitmq() -> None:
    wrong = []
    for props, apps, index, expected in DATA["cases"]:
        try:
            f = property_filter(_decoded(props), _decoded(apps))
        except FilterError:
            got = "error"
        else:
            got = "true" if f.matches(MESSAGES[index]) else "false"
            assert f.evaluate(MESSAGES[index]) is (got == "true")
        if got != expected:
            wrong.append((props, apps, index, expected, got))
    assert not wrong, wrong[:20]


def test_modifiers_nulls_and_presence() -> None:
    m = Message({"k": "a&b", "n": 5}, {"subject": "orders.eu", "message_id": 7})
    assert property_filter({"subject": "&p:orders."}).matches(m)
    assert property_filter({"subject": "&s:.eu"}).matches(m)
    assert not property_filter({"subject": "&s:orders"}).matches(m)
    assert property_filter({"message-id": 7}).matches(m)
    assert property_filter(application_properties={"k": None, "n": 5.0}).matches(m)
    # null matches any value, but the property must be there.
    assert not property_filter(application_properties={"absent": None}).matches(m)
    assert property_filter(application_properties={"k": "&&b"}).matches(Message({"k": "&b"}))
    # A plain mapping is application properties; odd messages never raise.
    assert property_filter(application_properties={"n": 5}).matches({"n": 5})
    assert not property_filter({"subject": "x"}).matches(object())


@pytest.mark.parametrize("props, apps", [
    ({"subject": "&x"}, None), ({"nope": 1}, None), ({"user-id": "guest"}, None),
    ({"group-sequence": -1}, None), ({}, None), (None, None),
    (None, {f"k{i}": 1 for i in range(17)}), (None, {"f": float("nan")}),
])
def test_refused_like_rabbitmq(props: Any, apps: Any) -> None:
    with pytest.raises(FilterError):
        property_filter(props, apps)


def test_pickles_and_compares() -> None:
    f = property_filter({"subject": "&p:a"}, {"k": b"\x00", "n": None})
    assert pickle.loads(pickle.dumps(f)) == f
    assert hash(f) == hash(property_filter({"subject": "&p:a"}, {"k": b"\x00", "n": None}))
    assert f != property_filter({"subject": "&s:a"}, {"k": b"\x00", "n": None})
