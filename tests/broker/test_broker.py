"""msgfilter.broker: results, entries, chains and the built-in entry filters."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import msgfilter
from msgfilter import Message
from msgfilter.batch import BatchMode
from msgfilter.broker import (
    ConsumerFilter,
    Entry,
    EntryDecision,
    EntryFilter,
    EntryMetadata,
    FilterChain,
    FilterConfigError,
    FilterContext,
    FilterResult,
    JmsSelectorConfig,
    JmsSelectorFilter,
    Position,
    PulsarTagConfig,
    PulsarTagEntryFilter,
    RocketMQConfig,
    RocketMQEntryFilter,
    combine,
    expression_dialect,
    rocketmq_dialect,
    validate_consumer_metadata,
    validate_subscription_properties,
)
from msgfilter.broker.results import RESULTS, decision_of_marks
from msgfilter.errors import FilterError, FilterSyntaxError, FilterTypeError
from msgfilter.jsmtype import encode_properties, pulsar_message

A, R, S = FilterResult.ACCEPT, FilterResult.REJECT, FilterResult.RESCHEDULE
POS = Position(1, 0)


def jms(**values: object) -> Message:
    return pulsar_message(encode_properties(values))


def sub(selector: str, **extra: str) -> dict[str, str]:
    return {"jms.filtering": "true", "jms.selector": selector, **extra}


# --- types ---------------------------------------------------------------------------------


def test_combine_and_entry_decisions() -> None:
    assert combine([R, A]) is A and combine([R, S]) is S and combine([R, R]) is R
    assert combine([]) is A
    assert combine(iter([R, S, R])) is S and combine((R,) * 1000) is R and combine((S, A)) is A
    d = EntryDecision.per_message([A, R, S, A])
    assert d.result is A and d.kept == (0, 3) and d.rejected == (1,) and d.rescheduled == (2,)
    assert d.dropped == (1, 2) and d.acknowledge == (1,) and not d.uniform_result
    u = EntryDecision.uniform(None, 2)
    assert u.result is A and u.message_results == (A, A) and u.uniform_result


@given(st.lists(st.sampled_from([A, R, S]), max_size=70))
def test_decisions_from_marks_are_decisions_from_results(results: list[FilterResult]) -> None:
    from_marks = decision_of_marks(bytes(RESULTS.index(r) for r in results))
    decision = EntryDecision.per_message(results)
    assert from_marks == decision and hash(from_marks) == hash(decision)
    for d in (from_marks, decision):
        for wanted, indexes in ((A, d.kept), (R, d.rejected), (S, d.rescheduled)):
            assert indexes == tuple(i for i, r in enumerate(results) if r is wanted)
        assert d.dropped == tuple(i for i, r in enumerate(results) if r is not A)
    assert pickle.loads(pickle.dumps(decision)) == decision


def test_a_decision_holding_something_else_keeps_and_drops_it() -> None:
    odd = EntryDecision(A, (A, None, R))  # type: ignore[arg-type]
    assert odd.kept == (0,) and odd.rejected == (2,) and odd.dropped == (1, 2)


def test_entries_hold_the_right_number_of_messages() -> None:
    assert Entry.single(POS, {"a": "1"}).metadata.properties == {"a": "1"}
    batch = Entry.batch(POS, [{"a": 1}, Message(tags="T")], publish_time=5)
    assert batch.is_batch and batch.size == 2 and batch.metadata.batch_size == 2
    assert isinstance(batch.messages[0], Message) and batch.metadata.publish_time == 5
    with pytest.raises(ValueError):
        Entry(POS, (Message(), Message()))  # not a batch: one message
    with pytest.raises(ValueError):
        Entry(POS, (Message(),), EntryMetadata(batch_size=3))
    with pytest.raises(TypeError):
        Entry.batch(POS, [42])  # type: ignore[list-item]
    assert str(Position(3, 4)) == "3:4" and Position(1, 2) < Position(2, 0)


def test_contexts_are_read_only_and_derive_per_entry() -> None:
    props = {"k": "v"}
    ctx = FilterContext("s", props, {"m": "1"})
    props["k"] = "changed"
    assert ctx.subscription_properties == {"k": "v"}
    with pytest.raises(TypeError):
        ctx.subscription_properties["x"] = "y"  # type: ignore[index]
    entry = Entry.single(POS, {})
    derived = ctx.for_entry(entry, replay=True)
    assert derived.entry_metadata is entry.metadata and derived.replay
    assert derived.for_entry(entry) is derived
    assert FilterContext("s").consumer_get("m", "d") == "d" and ctx.consumer_get("m") == "1"


# --- chains --------------------------------------------------------------------------------


class Fixed(EntryFilter):
    """Answers `result` and records every call and close."""

    def __init__(self, result: FilterResult | None, log: list[str], name: str) -> None:
        self.result, self.log, self.name = result, log, name

    def filter_entry(self, entry: Entry, context: FilterContext) -> FilterResult | None:
        assert context.entry_metadata is entry.metadata
        self.log.append(self.name)
        return self.result

    def close(self) -> None:
        self.log.append(f"close {self.name}")


def test_the_first_non_accept_wins_and_later_filters_are_not_called() -> None:
    log: list[str] = []
    chain = FilterChain([Fixed(None, log, "a"), Fixed(S, log, "b"), Fixed(R, log, "c")])
    assert chain.filter_entry(Entry.single(POS, {}), FilterContext("s")) is S
    assert log == ["a", "b"]
    assert FilterChain().filter_entry(Entry.single(POS, {}), FilterContext("s")) is A
    with chain:
        pass
    assert log[-3:] == ["close a", "close b", "close c"]
    with pytest.raises(TypeError):
        FilterChain([object()])  # type: ignore[list-item]


def test_a_chain_decides_per_message() -> None:
    exact = JmsSelectorFilter(JmsSelectorConfig(batch_mode=BatchMode.EXACT))
    tags = PulsarTagEntryFilter(PulsarTagConfig(batch_mode="exact"))  # type: ignore[arg-type]
    ctx = FilterContext("s", sub("n > 1"), {"anytag": "x"})
    entry = Entry.batch(
        POS,
        [
            Message({"n": "5", "n_jsmtype": "int", "tag": "x"}),
            Message({"n": "0", "n_jsmtype": "int", "tag": "x"}),
            Message({"n": "5", "n_jsmtype": "int", "tag": "y"}),
        ],
    )
    decision = FilterChain([tags, exact]).decide(entry, ctx)
    assert decision.message_results == (A, R, R) and decision.kept == (0,)


def test_closing_a_chain_closes_every_filter_even_if_one_fails() -> None:
    log: list[str] = []

    class Broken(Fixed):
        def close(self) -> None:
            raise RuntimeError("boom")

    chain = FilterChain([Broken(None, log, "a"), Fixed(None, log, "b")])
    with pytest.raises(RuntimeError):
        chain.close()
    assert log == ["close b"]


# --- pulsar-jms selectors ------------------------------------------------------------------


def test_no_selector_accepts_everything() -> None:
    f = JmsSelectorFilter()
    entry = Entry.single(POS, jms(n=1))
    assert f.filter_entry(entry, FilterContext("s")) is A
    # jms.selector without jms.filtering=true is not a subscription selector.
    assert f.filter_entry(entry, FilterContext("s", {"jms.selector": "n > 5"})) is A


def test_subscription_selector_mismatch_is_reject() -> None:
    f = JmsSelectorFilter()
    ctx = FilterContext("s", sub("n > 5"))
    assert f.filter_entry(Entry.single(POS, jms(n=9)), ctx) is A
    assert f.filter_entry(Entry.single(POS, jms(n=1)), ctx) is R
    # Typed: the int 9 is a number; as a plain string "9" it would not be.
    assert f.filter_entry(Entry.single(POS, Message({"n": "9"})), ctx) is R


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({}, S),
        ({"jms.selector.reject.action": "reschedule"}, S),
        ({"jms.selector.reject.action": "drop"}, R),
        ({"jms.force.drop.rejected": "true"}, R),
        ({"jms.selector.reject.action": "DROP"}, S),  # exact words, as pulsar-jms
    ],
)
def test_consumer_selector_mismatch_takes_the_reject_action(
    metadata: dict[str, str], expected: FilterResult
) -> None:
    f = JmsSelectorFilter()
    ctx = FilterContext("s", {}, {"jms.filtering": "true", "jms.selector": "n > 5", **metadata})
    assert f.filter_entry(Entry.single(POS, jms(n=1)), ctx) is expected
    assert f.filter_entry(Entry.single(POS, jms(n=7)), ctx) is A


def test_a_consumer_selector_needs_filtering_switched_on() -> None:
    f = JmsSelectorFilter()
    off = FilterContext("s", {}, {"jms.selector": "n > 5"})
    assert f.filter_entry(Entry.single(POS, jms(n=1)), off) is A
    via_subscription = FilterContext("s", sub("n > 0"), {"jms.selector": "n > 5"})
    assert f.filter_entry(Entry.single(POS, jms(n=1)), via_subscription) is S


def test_marker_entries_are_accepted() -> None:
    f = JmsSelectorFilter()
    marker = Entry(POS, (Message(),), EntryMetadata(marker=True))
    assert f.filter_entry(marker, FilterContext("s", sub("n > 5"))) is A


def test_batches_follow_pulsar_jms_in_any_mode() -> None:
    f = JmsSelectorFilter()
    both = FilterContext("s", sub("n > 0"), {"jms.selector": "c = 'red'"})
    one_match = Entry.batch(POS, [jms(n=1, c="blue"), jms(n=1, c="red")])
    assert f.decide(one_match, both).message_results == (A, A)
    none_pass_sub = Entry.batch(POS, [jms(n=0, c="red"), jms(n=-1, c="red")])
    assert f.filter_entry(none_pass_sub, both) is R
    only_consumer_misses = Entry.batch(POS, [jms(n=0, c="red"), jms(n=3, c="blue")])
    assert f.filter_entry(only_consumer_misses, both) is S
    bad = Message({"n": "oops", "n_jsmtype": "int", "c": "red"})
    with_error = Entry.batch(POS, [jms(n=1, c="red"), bad])
    assert f.filter_entry(with_error, both) is R  # an evaluation error rejects the batch


def test_exact_mode_judges_each_message() -> None:
    f = JmsSelectorFilter(JmsSelectorConfig.from_mapping({"batch_mode": "exact"}))
    ctx = FilterContext("s", sub("n > 0"), {"jms.selector": "c = 'red'"})
    bad = Message({"n": "oops", "n_jsmtype": "int", "c": "red"})
    entry = Entry.batch(POS, [jms(n=1, c="red"), jms(n=0, c="red"), jms(n=1, c="blue"), bad])
    decision = f.decide(entry, ctx)
    assert decision.message_results == (A, R, S, R)
    assert f.filter_entry(entry, ctx) is A


def test_a_bad_typed_value_rejects_only_when_read() -> None:
    f = JmsSelectorFilter()
    ctx = FilterContext("s", sub("n > 0"))
    unread = Message({"n": "2", "n_jsmtype": "int", "x": "oops", "x_jsmtype": "int"})
    assert f.filter_entry(Entry.single(POS, unread), ctx) is A
    read = Message({"n": "two", "n_jsmtype": "int"})
    assert f.filter_entry(Entry.single(POS, read), ctx) is R


def test_headers_seen_by_selectors() -> None:
    f = JmsSelectorFilter()
    ctx = FilterContext(
        "s",
        sub("JMSPriority = 4 AND JMSDeliveryMode = 'PERSISTENT' AND JMSXGroupID = 'k' "
            "AND JMSDestination = 'queue://t1'"),
        {"jms.destination.type": "queue"},
        topic="t1",
    )
    assert f.filter_entry(Entry.single(POS, pulsar_message({}, partition_key="k")), ctx) is A
    assert f.filter_entry(Entry.single(POS, pulsar_message({})), ctx) is R


def test_untyped_mode_reads_the_message_as_it_is() -> None:
    f = JmsSelectorFilter(JmsSelectorConfig(typed_properties=False))
    ctx = FilterContext("s", sub("n = '9'"))
    assert f.filter_entry(Entry.single(POS, jms(n=9)), ctx) is A


def test_pip419_expression_pair() -> None:
    f = JmsSelectorFilter()
    ctx = FilterContext("s", {"filter.expression": "n > 5"})
    assert f.filter_entry(Entry.single(POS, jms(n=9)), ctx) is A
    assert f.filter_entry(Entry.single(POS, jms(n=1)), ctx) is R
    tagged = FilterContext(
        "s", {"filter.expression": "TagA", "filter.expression.type": "rocketmq-tag"}
    )
    assert f.filter_entry(Entry.single(POS, Message(tags="TagA")), tagged) is A
    assert f.filter_entry(Entry.single(POS, Message(tags="TagB")), tagged) is R
    assert expression_dialect("sql92") == "jms" and expression_dialect(None) == "jms"
    with pytest.raises(FilterError):
        expression_dialect("XPATH")


def test_invalid_stored_selectors_follow_the_policy_and_are_not_recompiled() -> None:
    ctx = FilterContext("s", sub("n >"))
    entry = Entry.batch(POS, [jms(n=1)] * 50)
    default = JmsSelectorFilter()
    assert default.filter_entry(entry, ctx) is S
    misses = msgfilter.cache_info().misses
    for _ in range(20):
        assert default.filter_entry(entry, ctx) is S
    assert msgfilter.cache_info().misses == misses
    strict = JmsSelectorFilter(JmsSelectorConfig(on_invalid_selector=R))
    assert strict.filter_entry(entry, ctx) is R
    unknown = FilterContext("s", {"filter.expression": "a", "filter.expression.type": "nope"})
    assert default.filter_entry(entry, unknown) is S
    with pytest.raises(FilterSyntaxError):
        default.consumer_filter(ctx)


def test_compiled_selectors_are_shared_not_compiled_per_message() -> None:
    msgfilter.purge()
    f = JmsSelectorFilter()
    ctx = FilterContext("s", sub("n > 5 AND c LIKE 'r%'"), {"jms.selector": "n < 100"})
    entry = Entry.batch(POS, [jms(n=i, c="red") for i in range(200)])
    f.filter_entry(entry, ctx)
    info = msgfilter.cache_info()
    for _ in range(5):
        f.filter_entry(entry, ctx)
    after = msgfilter.cache_info()
    assert after.misses == info.misses == 2
    # A second filter instance shares the engine's compiled selectors (hits, not misses).
    JmsSelectorFilter().filter_entry(entry, ctx)
    assert msgfilter.cache_info().misses == 2


def test_validation_where_subscriptions_and_consumers_are_created() -> None:
    validate_subscription_properties(sub("n > 1"))
    validate_subscription_properties({"jms.selector": "not checked without filtering ("})
    with pytest.raises(FilterSyntaxError):
        validate_subscription_properties(sub("n >"))
    with pytest.raises(FilterTypeError):
        validate_subscription_properties(sub("'a' < 'b'"))
    with pytest.raises(FilterSyntaxError):
        validate_subscription_properties({"filter.expression": "a = "})
    with pytest.raises(FilterError):
        validate_subscription_properties({"filter.expression.type": "SQL92"})
    validate_consumer_metadata({"jms.selector": "a = 1", "jms.selector.reject.action": "drop"})
    with pytest.raises(FilterConfigError):
        validate_consumer_metadata({"jms.selector.reject.action": "discard"})
    with pytest.raises(FilterSyntaxError):
        validate_consumer_metadata({"jms.selector": "a = = 1"})


def test_consumer_filters_reapply_both_selectors() -> None:
    f = JmsSelectorFilter()
    ctx = FilterContext("s", sub("n > 0"), {"jms.selector": "c = 'red'"})
    consumer = f.consumer_filter(ctx)
    assert isinstance(consumer, ConsumerFilter)
    assert consumer.accept(jms(n=1, c="red"))
    assert not consumer.accept(jms(n=0, c="red")) and not consumer.accept(jms(n=1, c="blue"))
    assert consumer.accept({"n": 1, "c": "red"})  # a plain mapping works too
    assert not consumer.accept(None) and not consumer.accept(42)  # odd data: no match
    assert f.consumer_filter(FilterContext("s")).accept(jms())


def test_config_validation() -> None:
    with pytest.raises(FilterConfigError):
        JmsSelectorConfig(dialect="pulsar-tag")
    with pytest.raises(FilterConfigError):
        JmsSelectorConfig.from_mapping({"batch_mode": "sometimes"})
    with pytest.raises(FilterConfigError):
        JmsSelectorConfig.from_mapping({"typo": 1})
    cfg = JmsSelectorConfig.from_mapping(
        {"typed-properties": "no", "on_invalid_selector": "REJECT"}
    )
    assert cfg.typed_properties is False and cfg.on_invalid_selector is R
    assert cfg.as_dict()["on_invalid_selector"] == "reject"
    assert pickle.loads(pickle.dumps(cfg)) == cfg


def test_odd_message_data_never_raises() -> None:
    f = JmsSelectorFilter(JmsSelectorConfig(batch_mode=BatchMode.EXACT))
    ctx = FilterContext("s", sub("n > 0 AND JMSCorrelationID IS NULL"), {"jms.selector": "x"})
    odd: list[Any] = [
        Message({"n": None}),
        Message({"n": [1, 2]}),
        Message({"n": "1", "n_jsmtype": 5}),
        Message({"JMSCorrelationID": "%%%"}),
        Message({"n": "1e999", "n_jsmtype": "double"}),
    ]
    decision = f.decide(Entry.batch(POS, odd), ctx)
    assert decision.size == 5 and all(r in (A, R, S) for r in decision.message_results)
    odd_context = FilterContext("s", {"jms.filtering": "true", "jms.selector": 42})  # type: ignore[dict-item]
    assert f.filter_entry(Entry.single(POS, {}), odd_context) is S


# --- Pulsar tags ---------------------------------------------------------------------------


def test_pulsar_tags_from_consumer_metadata() -> None:
    f = PulsarTagEntryFilter()
    ctx = FilterContext("s", {}, {"anytag1": "a", "anytag2": "b", "alltag": "eu"})
    assert f.filter_entry(Entry.single(POS, {"tag1": "a", "tag9": "eu"}), ctx) is A
    assert f.filter_entry(Entry.single(POS, {"tag1": "a"}), ctx) is R
    assert f.filter_entry(Entry.single(POS, {"tag": "c", "tagx": "eu"}), ctx) is R
    assert f.filter_entry(Entry.single(POS, {}), FilterContext("s")) is A
    assert f.filter_entry(Entry.single(POS, {}), FilterContext("s", {}, {"x": "1"})) is A
    resched = PulsarTagEntryFilter(PulsarTagConfig(reject_action=S))
    assert resched.filter_entry(Entry.single(POS, {"tag1": "z"}), ctx) is S
    batch = Entry.batch(POS, [{"tag": "z"}, {"tag1": "b", "tag2": "eu"}])
    assert f.filter_entry(batch, ctx) is A
    exact = PulsarTagEntryFilter(PulsarTagConfig(batch_mode=BatchMode.EXACT))
    assert exact.decide(batch, ctx).message_results == (R, A)
    assert f.consumer_filter(ctx).accept({"tag1": "b", "tag2": "eu"})
    with pytest.raises(FilterConfigError):
        PulsarTagConfig(reject_action=A)


def test_pulsar_tag_filters_are_built_once_per_consumer_setting() -> None:
    f = PulsarTagEntryFilter()
    ctx = FilterContext("s", {}, {"anytag": "a"})
    entry = Entry.batch(POS, [{"tag": "a"}] * 100)
    f.filter_entry(entry, ctx)
    misses = msgfilter.cache_info().misses
    for _ in range(10):
        f.filter_entry(entry, ctx)
    assert msgfilter.cache_info().misses == misses


# --- RocketMQ ------------------------------------------------------------------------------


def test_rocketmq_tag_subscriptions() -> None:
    f = RocketMQEntryFilter()
    ctx = FilterContext("g", {"rocketmq.expression": "TagA || TagB"})
    assert f.filter_entry(Entry.single(POS, Message(tags="TagB")), ctx) is A
    assert f.filter_entry(Entry.single(POS, Message(tags="TagC")), ctx) is R
    assert f.filter_entry(Entry.single(POS, Message()), ctx) is R
    everything = FilterContext("g", {"rocketmq.expression": "*"})
    assert f.filter_entry(Entry.single(POS, Message()), everything) is A
    assert f.filter_entry(Entry.single(POS, Message()), FilterContext("g")) is A


def test_rocketmq_hash_check_lets_collisions_through() -> None:
    ctx = FilterContext("g", {"rocketmq.expression": "Aa"})
    entry = Entry.single(POS, Message(tags="BB"))  # Java "BB".hashCode() == "Aa".hashCode()
    assert RocketMQEntryFilter().filter_entry(entry, ctx) is R
    by_hash = RocketMQEntryFilter(RocketMQConfig(exact_tags=False))
    assert by_hash.filter_entry(entry, ctx) is A
    assert not by_hash.consumer_filter(ctx).accept(Message(tags="BB"))  # the client re-check


def test_rocketmq_sql92_and_types() -> None:
    f = RocketMQEntryFilter()
    ctx = FilterContext(
        "g", {"rocketmq.expression": "a > 5", "rocketmq.expression.type": "SQL92"}
    )
    assert f.filter_entry(Entry.single(POS, {"a": "7"}), ctx) is A
    assert f.filter_entry(Entry.single(POS, {"a": "3"}), ctx) is R
    # The consumer's metadata wins over the subscription's.
    override = FilterContext(
        "g",
        {"rocketmq.expression": "a > 5", "rocketmq.expression.type": "SQL92"},
        {"rocketmq.expression": "a > 1"},
    )
    assert f.filter_entry(Entry.single(POS, {"a": "3"}), override) is A
    bad = FilterContext("g", {"rocketmq.expression": "x", "rocketmq.expression.type": "sql92"})
    assert f.filter_entry(Entry.single(POS, {}), bad) is S
    assert rocketmq_dialect("") == "rocketmq-tag" and rocketmq_dialect("SQL92") == "rocketmq"
    with pytest.raises(FilterError):
        rocketmq_dialect("TAGS")


# --- properties ----------------------------------------------------------------------------

_values = st.one_of(st.none(), st.integers(-3, 3), st.sampled_from(["1", "x", "2.5"]))
_selectors = st.sampled_from(["", "n > 0", "n = 1 OR m IS NULL", "m < 2", "n BETWEEN -1 AND 1"])
_actions = st.sampled_from([{}, {"jms.selector.reject.action": "drop"}])


def _message(n: object, m: object) -> Message:
    props: dict[str, str] = {}
    for name, value in (("n", n), ("m", m)):
        if isinstance(value, int):
            props[name], props[name + "_jsmtype"] = str(value), "int"
        elif isinstance(value, str):
            props[name] = value
            if value == "x":
                props[name + "_jsmtype"] = "int"  # a bad typed value: an evaluation error
    return Message(props)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(_values, _values), min_size=1, max_size=6),
    _selectors,
    _selectors,
    _actions,
)
def test_exact_mode_gives_each_message_its_single_message_result(
    pairs: list[tuple[object, object]], sub_sel: str, cons_sel: str, action: dict[str, str]
) -> None:
    ctx = FilterContext(
        "s", sub(sub_sel) if sub_sel else {}, {"jms.filtering": "true", "jms.selector": cons_sel,
                                                **action}
    )
    messages = [_message(n, m) for n, m in pairs]
    exact = JmsSelectorFilter(JmsSelectorConfig(batch_mode=BatchMode.EXACT))
    pulsar_jms = JmsSelectorFilter()
    batch = Entry.batch(POS, messages)
    singles = [pulsar_jms.filter_entry(Entry.single(POS, m), ctx) for m in messages]
    decision = exact.decide(batch, ctx)
    assert list(decision.message_results) == singles
    # pulsar-jms mode accepts the whole batch exactly when some message is accepted alone
    # and no message is an evaluation error.
    whole = pulsar_jms.filter_entry(batch, ctx)
    if whole is A:
        assert A in singles
    elif A in singles:
        assert whole is R  # only an evaluation error elsewhere can reject it
