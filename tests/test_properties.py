"""Properties of the engine on generated selectors and messages (issue 7).

The compiled evaluator agrees with the reference evaluator (msgfilter.testing), unparse
round-trips, bad text fails with a positioned FilterError and never anything else, user
text never reaches generated source, filters are thread-safe and pickle. Bounded by
the `msgfilter-ci` Hypothesis profile; benchmarks/fuzz.py runs the same properties
longer (MSGFILTER_HYPOTHESIS_PROFILE=msgfilter-fuzz). The Arrow and Spark agreement
properties are in test_properties_backends.py.
"""

from __future__ import annotations

import copy
import importlib.util
import pickle
import sys
import threading
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import msgfilter
from msgfilter import (
    FilterError,
    FilterLimitError,
    FilterPositionError,
    Limits,
    Message,
)
from msgfilter.selector import SelectorFilter
from msgfilter.testing import (
    expressions,
    identifiers,
    invalid_selectors,
    messages,
    property_settings,
    reference_filter,
    selector_cases,
    selectors,
)
from msgfilter.testing.reference import java_text, value_of, walk

from conformance import load, message_of

Case = tuple[str, list[dict[str, object]]]


def outcome(build: Callable[[str], Any], text: str) -> str:
    """'ok', or the error's class name; anything but a FilterError propagates."""
    try:
        build(text)
    except FilterError:
        return "error"
    return "ok"


def check_rejection(text: str) -> None:
    """Bad text fails with a positioned FilterError inside the text, and the reference
    rejects exactly what the engine rejects."""
    try:
        msgfilter.compile(text)
    except FilterPositionError as error:
        assert 0 <= error.offset <= len(text)
        assert error.line >= 1 and error.column >= 1
        engine = "error"
    else:
        engine = "ok"
    assert outcome(reference_filter, text) == engine, text


# -- compiled == reference --------------------------------------------------------------


@property_settings()
@given(selector_cases(max_depth=4))
def test_compiled_agrees_with_reference(case: Case) -> None:
    text, found = case
    f = msgfilter.compile(text)
    ref = reference_filter(text)
    assert f.identifiers == ref.identifiers
    for message in found:
        expected = ref.evaluate(message)
        assert f.evaluate(message) is expected, (text, message)
        assert f.matches(message) is (expected is True)
        # Other mappings and Message objects take another path into the evaluator.
        assert f.evaluate(MappingProxyType(message)) is expected
        assert f.evaluate(Message(properties=message)) is expected


@property_settings()
@given(selector_cases(identifiers=identifiers(), max_depth=3))
def test_compiled_agrees_with_reference_on_unusual_names(case: Case) -> None:
    text, found = case
    f, ref = msgfilter.compile(text), reference_filter(text)
    for message in found:
        assert f.evaluate(message) is ref.evaluate(message), (text, message)


@property_settings()
@given(selectors(max_depth=3), st.lists(messages(types=["odd", "null"]), max_size=3))
def test_values_of_no_selector_type_never_raise(text: str, found: list[dict[str, object]]) -> None:
    f, ref = msgfilter.compile(text), reference_filter(text)
    for message in found:
        assert f.evaluate(message) is ref.evaluate(message), (text, message)
    for odd in (None, 42, "a = 1", [("a", 1)], object()):
        assert f.evaluate(odd) is ref.evaluate(odd)


def test_conformance_corpus_agrees_with_reference() -> None:
    for case in load("activemq-corpus-seed1.jsonl"):
        text, message = case["selector"], message_of(case)
        try:
            expected: Any = reference_filter(text).evaluate(message)
        except FilterError:
            expected = "error"
        try:
            got: Any = msgfilter.compile(text).evaluate(message)
        except FilterError:
            got = "error"
        assert got == expected == case["spec"], case["id"]


@property_settings()
@given(expressions(max_depth=4), messages(types=["long", "double", "string", "boolean", "null"]),
       st.booleans())
def test_compiled_values_are_the_references(
    expression: str, message: dict[str, object], as_is: bool
) -> None:
    # J31: `'' + (X)` is X's exact text (a double's shortest digits, -0.0, NaN, a
    # wrapped long), so equality with the reference's text checks X's value itself.
    operand = reference_filter(f"({expression}) IS NULL").tree
    assert operand is not None
    value = value_of(operand.operands[0], message)
    text = java_text(value)
    probe = f"'' + ({expression}) = probe$"
    f = msgfilter.compile(probe)
    assert f.evaluate({**message, "probe$": text}) is (None if text is None else True), (
        expression, message, value,
    )
    null_test = msgfilter.compile(f"({expression}) IS {'' if as_is else 'NOT '}NULL")
    assert null_test.evaluate(message) is ((value is None) == as_is)


# -- unparse ------------------------------------------------------------------------------


@property_settings()
@given(selector_cases(max_depth=4))
def test_unparse_round_trips(case: Case) -> None:
    text, found = case
    f = msgfilter.compile(text)
    canonical = str(f)
    g = msgfilter.compile(canonical)
    assert g == f and hash(g) == hash(f)
    assert str(g) == canonical  # canonical text is a fixed point
    ref = reference_filter(canonical)
    for message in found:
        assert g.evaluate(message) is f.evaluate(message) is ref.evaluate(message), (
            text, canonical, message,
        )


# -- invalid input --------------------------------------------------------------------------

# Tokens and near-tokens, so that random text gets past the lexer often.
SOUP = st.sampled_from([
    "a", "b", "JMSType", "über", "1", "0", "07", "08", "0x1F", "1.5", ".5", "5.", "1e3",
    "9223372036854775808", "'x'", "''", "'it''s'", "'", "=", "<>", "<", "<=", ">", ">=",
    "+", "-", "*", "/", "(", ")", ",", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS",
    "ESCAPE", "NULL", "TRUE", "FALSE", "not", "!", "!=", "==", "%", ":", '"', ";", "\\",
    " ", "\t", "\n", "\u00a0", "\x00", "😀",
])


@property_settings()
@given(invalid_selectors(max_depth=3))
def test_mutated_selectors_fail_cleanly(text: str) -> None:
    check_rejection(text)


@property_settings()
@given(st.one_of(st.text(), st.lists(SOUP, max_size=12).map(" ".join),
                 st.lists(SOUP, max_size=12).map("".join)))
def test_arbitrary_text_fails_cleanly(text: str) -> None:
    check_rejection(text)


@pytest.mark.parametrize(
    "text",
    [
        "(" * 100_000 + "a" + ")" * 100_000,
        "(" * 100_000,
        "NOT " * 100_000 + "a",
        "a = " + " + ".join(["1"] * 100_000),
        "a" + " = a" * 100_000,
        "a IN (" + ",".join(["'x'"] * 70_000) + ")",
        "a = '" + "x" * 1_000_001 + "'",
        "a = " + "-(" * 300 + "1" + ")" * 300,
    ],
    ids=["parens", "open-parens", "nots", "sum", "equalities", "in-list", "length", "minus"],
)
def test_size_and_depth_limits_hold(text: str) -> None:
    with pytest.raises(FilterLimitError) as caught:
        msgfilter.compile(text)
    assert 0 <= caught.value.offset <= len(text)
    with pytest.raises(FilterLimitError):
        reference_filter(text)


def test_long_runs_of_unary_signs_are_fine() -> None:
    # Unary plus vanishes and minus folds into literals: no depth to exceed (J19).
    for text in ("a = " + "- " * 100_000 + "1", "+ " * 100_000 + "a"):
        assert msgfilter.compile(text).evaluate({"a": 1}) is reference_filter(text).evaluate(
            {"a": 1}
        )


def test_huge_decimal_literal_is_a_filter_error() -> None:
    with pytest.raises(FilterError):
        msgfilter.compile("a = " + "1" * 4301)


def _profile_events(text: str) -> int:
    """How many calls compiling `text` makes: a measure of work that, unlike time, does
    not depend on the machine or its load."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        count += 1

    msgfilter.compile("warm = 1 AND up = 2")  # the parser is built once per process
    msgfilter.purge()
    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        msgfilter.compile(text)
    finally:
        sys.setprofile(previous)
    return count


def test_compile_work_grows_linearly_with_in_lists() -> None:
    def text(n: int) -> str:
        return "a IN (" + ",".join(["'x'"] * n) + ")"

    assert _profile_events(text(4000)) < 16 * _profile_events(text(500))


def test_compile_work_grows_linearly_with_and_chains() -> None:
    def text(n: int) -> str:
        return " AND ".join(["a"] * n)

    assert _profile_events(text(4000)) < 16 * _profile_events(text(500))


# -- no code injection ----------------------------------------------------------------------

PAYLOADS = [
    '__import__("os").system("x")', "'", "\\", "\\'", '"', '"""', "'''", "\n", "\r\n",
    "\x00", "#", "{0}", "%s", ")\nimport os\n(", "\\x41", "\\N{BULLET}", "lambda: 1",
    "});", "\u2028", "😀", "K0", "v0", "m", "None", "True",
]
HOSTILE_NAMES = [
    "m", "v0", "K0", "t1", "_s0", "type", "None", "__import__", "_cond", "_cmp", "_arith",
    "_as_mapping", "__builtins__", "exec", "über", "$x", "a\u0301", "日本",
]


def quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@pytest.mark.parametrize("payload", PAYLOADS)
def test_string_literals_are_data(payload: str) -> None:
    text = (
        f"s = {quote(payload)} AND s LIKE {quote(payload)} ESCAPE '!' "
        f"AND s IN ({quote(payload)}, 'other') AND s + {quote(payload)} = t"
    )
    f = msgfilter.compile(text)
    message = {"s": payload, "t": payload + payload}
    assert f.evaluate(message) is True
    assert reference_filter(text).evaluate(message) is True
    assert f.evaluate({"s": payload + "x", "t": ""}) is False


def test_identifiers_named_like_the_evaluators_variables_are_data() -> None:
    text = " AND ".join(f"{name} = {i}" for i, name in enumerate(HOSTILE_NAMES))
    message = {name: i for i, name in enumerate(HOSTILE_NAMES)}
    f = msgfilter.compile(text)
    assert f.identifiers == set(HOSTILE_NAMES)
    assert f.evaluate(message) is True
    assert f.evaluate({**message, "m": -1}) is False


@property_settings()
@given(
    selectors(identifiers=["$x", "über", "a\u0301", "$v0", "$m"], max_depth=3),
    st.sampled_from(PAYLOADS),
)
def test_generated_source_holds_no_user_text(text: str, payload: str) -> None:
    text = f"({text}) OR $x = {quote(payload)}"
    f = msgfilter.compile(text)
    assert isinstance(f, SelectorFilter)
    source = f.source
    # Our own code is ASCII without quotes, backslashes or `$`; every name of these
    # selectors holds `$` or a non-ASCII letter...
    assert source.isascii()
    for forbidden in ("$", "'", '"', "\\", "\x00", "__import__", "system("):
        assert forbidden not in source
    # ... and no literal or pattern that holds a character of its own is in it.
    distinctive = [payload]
    for node in walk(reference_filter(text).tree):  # type: ignore[arg-type]
        if node.kind == "literal" and isinstance(node.value, str):
            distinctive.append(node.value)
        elif node.kind in ("like", "in"):
            distinctive += [node.pattern, *node.items]
    for literal in distinctive:
        if any(not ch.isascii() or ch in "$'\"\\\x00" for ch in literal):
            assert literal not in source


# -- threads ----------------------------------------------------------------------------------


def test_compile_and_evaluate_from_threads_while_the_cache_is_purged() -> None:
    cases = [(c["selector"], message_of(c)) for c in load("activemq-corpus-seed1.jsonl")[:400]]

    def answer(text: str, message: dict[str, object]) -> object:
        try:
            f = msgfilter.compile(text)
        except FilterError as error:
            return (type(error).__name__, getattr(error, "offset", None))
        return (f.evaluate(message), f.matches(message), str(f))

    expected = [answer(text, message) for text, message in cases]
    results: dict[int, list[object]] = {}
    failures: list[BaseException] = []
    start = threading.Barrier(9)
    done = threading.Event()

    def worker(index: int) -> None:
        try:
            start.wait()
            # Each thread starts at another case, so that they compile different texts
            # at the same time as well as the same ones.
            got: list[object] = [None] * len(cases)
            for step in range(len(cases)):
                at = (index * 50 + step) % len(cases)
                got[at] = answer(*cases[at])
            results[index] = got
        except BaseException as error:  # pragma: no cover - reported below
            failures.append(error)

    def purger() -> None:
        start.wait()
        while not done.is_set():
            msgfilter.purge()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    cleaner = threading.Thread(target=purger)
    for thread in [*threads, cleaner]:
        thread.start()
    for thread in threads:
        thread.join()
    done.set()
    cleaner.join()
    assert failures == []
    assert sorted(results) == list(range(8))
    for index in range(8):
        assert results[index] == expected, index


# -- pickle -------------------------------------------------------------------------------------


@property_settings(0.5)
@given(selector_cases(max_depth=3))
def test_selector_filters_pickle(case: Case) -> None:
    text, found = case
    f = msgfilter.compile(text)
    msgfilter.purge()  # the copy must be rebuilt, not found in the cache
    g = pickle.loads(pickle.dumps(f))
    assert g == f and g.text == f.text and g.dialect == f.dialect
    assert copy.deepcopy(f) is f
    for message in found:
        assert g.evaluate(message) is f.evaluate(message)


def _available(dialect: str) -> bool:
    module = {"rocketmq-tag": "msgfilter.tags", "pulsar-tag": "msgfilter.tags"}.get(dialect)
    return module is None or importlib.util.find_spec(module) is not None


@pytest.mark.parametrize(
    ("dialect", "text", "message"),
    [
        ("jms", "a > 1 AND s LIKE 'x%'", {"a": 2, "s": "xy"}),
        ("jms", "", {}),
        ("activemq", "NOT a = 1 OR s LIKE 'x%'", {"a": 2, "s": "xy"}),
        ("rocketmq", "a > 1 AND s IN ('x', 'y')", {"a": "2", "s": "x"}),
        ("rocketmq-tag", "TagA || TagB", {"TAGS": "TagB"}),
        ("rocketmq-tag", "*", {}),
        ("pulsar-tag", "anytag: a, b; alltag: c", {}),
    ],
)
def test_every_filter_kind_pickles(dialect: str, text: str, message: dict[str, object]) -> None:
    if not _available(dialect):
        pytest.skip(f"the {dialect} dialect is not available yet")
    try:
        f = msgfilter.compile(text, dialect)
    except (ImportError, NotImplementedError) as error:
        pytest.skip(f"the {dialect} dialect is not ready: {error}")
    for limits in (None, Limits(max_depth=100)):
        if limits is not None:
            f = msgfilter.compile(text, dialect, limits=limits)
        msgfilter.purge()
        g = pickle.loads(pickle.dumps(f, protocol=pickle.HIGHEST_PROTOCOL))
        assert g == f and hash(g) == hash(f) and g.limits == f.limits
        assert g.evaluate(message) == f.evaluate(message)
        assert g.matches(message) == f.matches(message)


# -- equality ------------------------------------------------------------------------------------


def test_equal_filters_give_equal_answers() -> None:
    # -0.0 and 0.0 are different literals: J30 and J31 tell them apart.
    negative = msgfilter.compile("'a' + -0.0 = 'a-0.0'")
    positive = msgfilter.compile("'a' + 0.0 = 'a-0.0'")
    assert negative.evaluate({}) is True and positive.evaluate({}) is False
    assert negative != positive
