"""pulsar-jms filtering decodes a typed property only when the selector reads it."""

from __future__ import annotations

import pytest

from msgfilter import Message
from msgfilter.batch import BatchMode
from msgfilter.broker import (
    Entry,
    FilterContext,
    FilterResult,
    JmsSelectorConfig,
    JmsSelectorFilter,
    Position,
)
from msgfilter.jsmtype import JsmTypeError, TypedReader, decode_properties

A, R, S = FilterResult.ACCEPT, FilterResult.REJECT, FilterResult.RESCHEDULE
POS = Position(1, 0)
BAD_B = Message({"a": "1", "a_jsmtype": "int", "b": "x", "b_jsmtype": "int"})


def _result(selector: str, message: Message, consumer: str | None = None) -> FilterResult:
    sub = {"jms.filtering": "true", "jms.selector": selector}
    meta = {"jms.selector": consumer} if consumer else None
    context = FilterContext("s", sub, meta)
    return JmsSelectorFilter().filter_entry(Entry.single(POS, message), context)


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("a = 1 OR b = 2", A),  # b is never read: no error (the departure that was)
        ("a = 2 AND b = 2", R),  # b never read: a plain mismatch
        ("b = 2 OR a = 1", R),  # b read first: an evaluation error
        ("a = 1 AND b = 2", R),
        ("a = 1 OR (b = 2 AND b > 0)", R),  # b named twice: read up front (documented)
    ],
)
def test_unread_bad_values_do_not_reject(selector: str, expected: FilterResult) -> None:
    assert _result(selector, BAD_B) is expected


def test_an_error_in_the_consumer_selector_rejects_a_mismatch_reschedules() -> None:
    assert _result("a = 1", BAD_B, consumer="b = 2") is R
    assert _result("a = 1", BAD_B, consumer="a = 2 AND b = 2") is S
    assert _result("a = 1", BAD_B, consumer="a = 1 OR b = 2") is A


def test_batches_in_both_modes() -> None:
    good = Message({"a": "1", "a_jsmtype": "int", "b": "2", "b_jsmtype": "int"})
    entry = Entry.batch(POS, [good, BAD_B, Message({"a": "3", "a_jsmtype": "int"})])
    ctx = FilterContext("s", {"jms.filtering": "true", "jms.selector": "b = 2 OR a = 3"})
    assert JmsSelectorFilter().filter_entry(entry, ctx) is R  # an error rejects the batch
    exact = JmsSelectorFilter(JmsSelectorConfig(batch_mode=BatchMode.EXACT))
    assert exact.decide(entry, ctx).message_results == (A, R, A)
    lazy = FilterContext("s", {"jms.filtering": "true", "jms.selector": "a = 1 OR b = 2"})
    assert exact.decide(entry, lazy).message_results == (A, A, R)


def test_the_view_agrees_with_decode_properties() -> None:
    props = {"n": "12", "n_jsmtype": "short", "f": "1.5", "f_jsmtype": "float", "s": "x",
             "JMSPriority": "7", "JMSCorrelationID": "aGk=", "u": "v", "u_jsmtype": "string"}
    message = Message(props, {"JMSXGroupID": "g", "JMSXGroupSeq": "5"})
    names = ["n", "f", "s", "u", "JMSPriority", "JMSCorrelationID", "JMSXGroupID",
             "JMSXGroupSeq", "JMSDeliveryMode", "missing"]
    view = TypedReader(names).view(message)
    eager = decode_properties(props, names=names, headers=message.headers)
    assert {n: view.get(n) for n in names if view.get(n) is not None} == eager
    assert dict(view) == decode_properties(props, headers=message.headers)
    assert view["n"] == 12 and "missing" not in view


def test_a_failed_read_is_recorded_and_memo_is_per_reader() -> None:
    reader = TypedReader(["b"])
    view = reader.view(BAD_B)
    with pytest.raises(JsmTypeError):
        view.get("b")
    assert view.failed == "b"
    view.rebind(Message({"b": "4", "b_jsmtype": "int"}))
    assert view.failed is None and view.get("b") == 4
    assert reader.decoded("4", "int", "b") == 4
