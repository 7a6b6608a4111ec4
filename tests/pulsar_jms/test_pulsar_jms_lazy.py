"""pulsar-jms filtering decodes a typed property only when the selector reads it."""

from __future__ import annotations

import pytest
from hypothesis import given

import msgfilter
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
from msgfilter.jsmtype import (
    TYPED_READS,
    JsmTypeError,
    TypedReader,
    decode_properties,
    encode_properties,
    pulsar_message,
)
from msgfilter.selector import SelectorFilter
from msgfilter.testing import property_settings, selector_cases

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
        ("a = 1 OR (b = 2 AND b > 0)", A),  # b named twice, still read only when reached
        ("a = 2 AND (b = 2 OR b > 0)", R),  # a plain mismatch
    ],
)
def test_unread_bad_values_do_not_reject(selector: str, expected: FilterResult) -> None:
    assert _result(selector, BAD_B) is expected


def test_an_error_in_the_consumer_selector_rejects_a_mismatch_reschedules() -> None:
    assert _result("a = 1", BAD_B, consumer="b = 2") is R
    assert _result("a = 1", BAD_B, consumer="a = 2 AND b = 2") is S
    assert _result("a = 1", BAD_B, consumer="a = 1 OR b = 2") is A


# pulsar-jms evaluates with its copy of ActiveMQ's selector code (LogicExpression,
# UnaryExpression in datastax/pulsar-jms activemq-filters, since commit dc854a24): at the
# top, AND and OR call their operands' matches() (AND stops at the first operand that is
# not TRUE, OR at the first TRUE); under NOT, evaluate(): AND stops only at FALSE and OR
# only at TRUE, so past an UNKNOWN operand they read the next one. A consumer selector's
# error REJECTs, its mismatch RESCHEDULEs: that tells a read from no read.
@pytest.mark.parametrize(
    ("consumer", "expected"),
    [
        ("c = 1 AND b = 2", S),  # c UNKNOWN: matches() stops, b never read
        ("c = 1 OR b = 2", R),  # OR goes on past UNKNOWN: b read
        ("NOT (c = 1 OR b = 2)", R),  # evaluate(): past UNKNOWN c, b read
        ("NOT NOT (c = 1 AND b = 2)", R),  # evaluate() of AND goes on past UNKNOWN
        ("NOT (a = 2 AND b = 2)", A),  # evaluate() of AND stops at FALSE: NOT FALSE
        ("NOT (a = 1 OR b = 2)", S),  # evaluate() of OR stops at TRUE
        ("(c = 1 AND b = 2) OR a = 1", A),  # matches() all the way down
        ("c = 1 AND (b = 2 OR b > 0) OR a = 2", S),
        ("c + b = 1", S),  # arithmetic skips the right side of a NULL, as ActiveMQ does
        # Documented difference: ActiveMQ skips the right side of `<` after a NULL left
        # (a RESCHEDULE there); a comparison of two expressions reads both here.
        ("c < b", R),
    ],
)
def test_reads_follow_the_brokers_evaluation(consumer: str, expected: FilterResult) -> None:
    assert _result("a = 1", BAD_B, consumer=consumer) is expected


def test_a_batch_judged_whole_reads_the_consumer_selector_first() -> None:
    # pulsar-jms's batch loop: the consumer selector, then the subscription selector,
    # both for every message; an error in either REJECTs the entry.
    good = Message({"a": "1", "a_jsmtype": "int", "b": "2", "b_jsmtype": "int"})
    sub_miss = Message({"a": "5", "a_jsmtype": "int", "b": "x", "b_jsmtype": "int"})
    sub = {"jms.filtering": "true", "jms.selector": "a = 1"}
    entry = Entry.batch(POS, [good, sub_miss])
    ctx = FilterContext("s", sub, {"jms.selector": "b = 2"})
    assert JmsSelectorFilter().filter_entry(entry, ctx) is R
    # Judged one by one, the subscription's mismatch comes first and b is not read.
    exact = JmsSelectorFilter(JmsSelectorConfig(batch_mode=BatchMode.EXACT))
    assert exact.decide(entry, ctx).message_results == (A, R)
    fine = Entry.batch(POS, [good, Message({"a": "5", "a_jsmtype": "int"})])
    assert JmsSelectorFilter().filter_entry(fine, ctx) is A


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


def _eager(f: SelectorFilter, message: Message) -> bool | None:
    """What `matches` answers on `message`'s eagerly decoded properties (`decode_properties`
    of the names `f` reads); None where one of them does not decode."""
    try:
        eager = decode_properties(
            message.properties, names=f.identifiers, headers=message.headers
        )
    except JsmTypeError:
        return None
    return f.matches(eager)


@given(selector_cases(types=("long", "double", "string", "boolean", "null")))
@property_settings(0.5)
def test_the_typed_evaluator_agrees_with_eager_decoding(
    case: tuple[str, list[dict[str, object]]],
) -> None:
    # Where every name the selector reads decodes (a system-typed name such as JMSPriority
    # may hold text that does not), reading where evaluation reaches changes nothing: the
    # typed evaluator answers what `matches` answers on the eagerly decoded properties.
    text, values = case
    f = msgfilter.compile(text)
    assert isinstance(f, SelectorFilter)
    typed = f.typed_matches(TYPED_READS)
    reads = TypedReader(f.identifiers).reads()
    for value in values:
        message = pulsar_message(encode_properties(value))
        expected = _eager(f, message)
        if expected is None:
            continue
        got = typed(message.view, message.properties, message.headers, reads, reads.memo)
        assert got == expected, (text, value)
        assert reads.failed is None


class _Text(str):
    """A str subclass in a hand-built message: text all the same."""


# Messages whose headers shadow a property, its companion, or both: the typed view's
# rule is `decode_properties`'s (a header wins and is shown as it is; only a property's
# own companion types it), whichever dict the evaluator looks in first.
SHADOWED = [
    Message({"n": "7", "n_jsmtype": "int"}, {"n": "text"}),
    Message({"n": "7", "n_jsmtype": "int"}, {"n_jsmtype": "double"}),
    Message({"n": "7", "n_jsmtype": "int"}, {"n_jsmtype": None}),
    Message({"n": "7"}, {"n_jsmtype": "int"}),
    Message({"n": "7", "n_jsmtype": "int"}, {"n": 7, "n_jsmtype": "string"}),
    Message({"n": "x", "n_jsmtype": "int"}, {"n": "7"}),
    Message({"n": "7", "n_jsmtype": "int"}),
    Message({"n": "7", "n_jsmtype": "string"}),
    Message({"n": "x", "n_jsmtype": "int"}),
    Message({"n": 7, "n_jsmtype": "int"}),
    Message({"n": "7"}, tags="t"),
    # Companions the typed evaluators' memo does not hold: they read through the careful
    # evaluator, which must answer the same.
    Message({"n": "7", "n_jsmtype": "integer"}),
    Message({"n": "7", "n_jsmtype": 5}),
    Message({"n": "7", "n_jsmtype": ["int"]}),
    Message({"n": ["7"], "n_jsmtype": "int"}),
    Message({"n_jsmtype": "null"}),
    Message({"n_jsmtype": "int"}),
    Message({"n": _Text("7"), "n_jsmtype": "int"}),
    Message({"n": "7", "n_jsmtype": _Text("int")}),
]


@pytest.mark.parametrize(
    "selector", ["n = 7", "n = '7'", "n IS NULL", "n IS NOT NULL", "n = 'text'", "n > 6"]
)
def test_headers_shadowing_a_property_or_its_companion(selector: str) -> None:
    f = msgfilter.compile(selector)
    assert isinstance(f, SelectorFilter)
    typed = f.typed_matches(TYPED_READS)
    typed_all = f.typed_matches_all(TYPED_READS)
    for message in SHADOWED:
        reads = TypedReader(f.identifiers).reads()
        expected = _eager(f, message)
        got = typed(message.view, message.properties, message.headers, reads, reads.memo)
        if expected is None:
            assert not got and reads.failed == "n"
            continue
        assert got == expected, (selector, message)
        assert typed_all([message], reads, reads.memo) == [expected], (selector, message)
        assert reads.failed is None
    # In one batch among plain messages: the odd ones go to the careful evaluator one by
    # one, their neighbours, read through the memo, answer as each would alone.
    plain = [pulsar_message(encode_properties({"n": v})) for v in (7, 8, "7", None)]
    messages = [m for pair in zip(SHADOWED, plain * len(SHADOWED), strict=False)
                for m in pair]
    reads = TypedReader(f.identifiers).reads()
    assert typed_all(messages, reads, reads.memo) == [_eager(f, m) is True for m in messages]
    assert reads.failed == "n"  # where "x" is the text of an int


@given(selector_cases(types=("long", "double", "string", "boolean", "null")))
@property_settings(0.5)
def test_the_batch_evaluator_answers_as_the_single_one(
    case: tuple[str, list[dict[str, object]]],
) -> None:
    # `typed_matches_all` is `typed_matches` of each message, and a failed read is
    # reported the same way (R.failed set).
    text, values = case
    f = msgfilter.compile(text)
    assert isinstance(f, SelectorFilter)
    typed = f.typed_matches(TYPED_READS)
    typed_all = f.typed_matches_all(TYPED_READS)
    messages = tuple(pulsar_message(encode_properties(v), sequence_id=i)
                     for i, v in enumerate(values))
    one = TypedReader(f.identifiers).reads()
    expected = []
    failed = False
    for m in messages:
        expected.append(typed(m.view, m.properties, m.headers, one, one.memo))
        failed = failed or one.failed is not None
        one.failed = None
    many = TypedReader(f.identifiers).reads()
    assert typed_all(messages, many, many.memo) == expected
    assert (many.failed is not None) == failed


def test_the_batch_evaluator_of_an_empty_selector_accepts_all() -> None:
    f = msgfilter.compile("")
    assert isinstance(f, SelectorFilter)
    reads = TypedReader(()).reads()
    assert f.typed_matches_all(TYPED_READS)((BAD_B, BAD_B), reads, reads.memo) == [True, True]


def test_a_failed_read_in_a_batch_rejects_only_its_message() -> None:
    messages = [Message({"b": str(i), "b_jsmtype": "int"}) for i in range(5)]
    messages[3] = BAD_B
    entry = Entry.batch(POS, messages)
    exact = JmsSelectorFilter(JmsSelectorConfig(batch_mode=BatchMode.EXACT))
    ctx = FilterContext("s", {"jms.filtering": "true", "jms.selector": "b >= 2"})
    assert exact.decide(entry, ctx).message_results == (R, R, A, R, A)
    assert JmsSelectorFilter().filter_entry(entry, ctx) is R  # ANY: an error rejects all


def test_the_batch_evaluator_of_a_deep_selector() -> None:
    # Deep enough that parts of the evaluator are split off into functions of their own.
    text = "NOT (" * 60 + "a = 1 OR " + "(" * 30 + "c" + " * 2)" * 30 + " > b" + ")" * 60
    f = msgfilter.compile(text)
    assert isinstance(f, SelectorFilter)
    typed, typed_all = f.typed_matches(TYPED_READS), f.typed_matches_all(TYPED_READS)
    messages = [pulsar_message(encode_properties({"a": i % 3, "b": i % 5, "c": i % 7}))
                for i in range(30)]
    messages.append(Message({"a": "2", "a_jsmtype": "int", "b": "x", "b_jsmtype": "int"}))
    one = TypedReader(f.identifiers).reads()
    expected = [typed(m.view, m.properties, m.headers, one, one.memo) for m in messages]
    many = TypedReader(f.identifiers).reads()
    assert typed_all(messages, many, many.memo) == expected
    assert 0 < sum(expected) < len(messages) and many.failed == one.failed == "b"


@pytest.mark.parametrize("size", [0, 1, 2])
def test_exact_decisions_of_small_batches(size: int) -> None:
    messages = [Message({"b": str(i + 1), "b_jsmtype": "int"}) for i in range(size)]
    exact = JmsSelectorFilter(JmsSelectorConfig(batch_mode=BatchMode.EXACT))
    ctx = FilterContext("s", {"jms.filtering": "true", "jms.selector": "b = 2"})
    decision = exact.decide(Entry.batch(POS, messages), ctx)
    assert decision.message_results == (R, A)[:size]
    assert decision.result is (A if size != 1 else R)


def test_exact_batches_with_a_consumer_selector_judge_each_message_alone() -> None:
    def msg(a: str, b: str) -> Message:
        return Message({"a": a, "a_jsmtype": "int", "b": b, "b_jsmtype": "int"})

    messages = [msg("1", "2"), msg("1", "3"), msg("1", "x"), msg("5", "x"), msg("1", "2")]
    sub = {"jms.filtering": "true", "jms.selector": "a = 1"}
    ctx = FilterContext("s", sub, {"jms.selector": "b = 2"})
    exact = JmsSelectorFilter(JmsSelectorConfig(batch_mode=BatchMode.EXACT))
    decision = exact.decide(Entry.batch(POS, messages), ctx)
    assert decision.message_results == (A, S, R, R, A)
    alone = tuple(exact.decide(Entry.single(POS, m), ctx).result for m in messages)
    assert decision.message_results == alone


class _Odd:
    """A property value whose comparisons raise (evaluation must not)."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no comparing")

    __hash__ = None  # type: ignore[assignment]


@pytest.mark.parametrize(
    ("selector", "odd"),
    [("NOT (x = 'a')", True), ("x <> 'a'", False), ("NOT (x IN ('a', 'b'))", True),
     ("x = 'a' OR y = 2", True)],
)
def test_typed_evaluators_answer_for_values_whose_comparisons_raise(
    selector: str, odd: bool
) -> None:
    # The typed evaluators test equality before the value's class, as `matches` does;
    # where that raises they answer as evaluation without the shortcut does.
    f = msgfilter.compile(selector)
    assert isinstance(f, SelectorFilter)
    typed, typed_all = f.typed_matches(TYPED_READS), f.typed_matches_all(TYPED_READS)
    messages = [
        Message({"x": _Odd(), "y": "2", "y_jsmtype": "int"}),
        Message({"x": "a", "y": "2", "y_jsmtype": "int"}),
        Message({"x": _Odd(), "y": "3", "y_jsmtype": "int"}),
    ]
    expected = [f.matches({"x": m.properties["x"], "y": int(str(m.properties["y"]))})
                for m in messages]
    reads = TypedReader(f.identifiers).reads()
    got = [typed(m.view, m.properties, m.headers, reads, reads.memo) for m in messages]
    assert got == expected and reads.failed is None
    assert typed_all(messages, reads, reads.memo) == expected and reads.failed is None
    assert expected[0] is odd  # an unlike type: `=` and `<>` are FALSE
