"""amqp-sql and AMQP property filters on Arrow kernels (backends/arrow/amqp.py,
amqp_properties.py) answer as RabbitMQ 4.2 does: every committed oracle case whose
message a table can hold (an integer beyond a long cannot), and, on drawn texts and
tables, what the per-message evaluator gives each row."""

from __future__ import annotations

import math
import warnings
from datetime import UTC, datetime, timedelta
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import msgfilter
import msgfilter.arrow as ma
from msgfilter import FilterError, Message, SubscriptionIndex
from msgfilter.amqp import property_filter
from msgfilter.backends.arrow.plans import plan_of
from msgfilter.layout import DEFAULT_LAYOUT, Layout
from msgfilter.testing import amqp_selectors, property_settings

from .cases import load, message, value
from .tables import one_row

DATA = load("sql_cases.json")
MESSAGES = [message(m) for m in DATA["messages"]]
TABLES = [one_row(m) for m in MESSAGES]
_ANSWER = {"true": True, "false": False, "unknown": None, "failure": None}


def _judge(cases: list[tuple[Any, int, bool | None]]) -> tuple[list[Any], int, int]:
    """(wrong answers, cases compared, cases on kernels) for (filter, message index,
    RabbitMQ's answer) cases; a case reading a value no column holds is left out."""
    wrong, native, compared = [], 0, 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for f, index, expected in cases:
            table, lost = TABLES[index]
            if f.identifiers & lost:
                continue
            compared += 1
            native += plan_of(f, table.schema, DEFAULT_LAYOUT) is not None
            got = ma.evaluate(f, table).to_pylist()[0]
            if got is not expected:
                wrong.append((f.text, index, expected, got))
    return wrong, compared, native


def test_every_oracle_case_a_table_can_hold_agrees_with_rabbitmq() -> None:
    cases = []
    for text, index, expected in DATA["cases"]:
        if expected == "error":
            with pytest.raises(FilterError):
                msgfilter.compile(text, "amqp-sql")
            continue
        cases.append((msgfilter.compile(text, "amqp-sql"), index, _ANSWER[expected]))
    wrong, compared, native = _judge(cases)
    assert not wrong, wrong[:20]
    # Most run on kernels; an integer literal beyond a long runs row by row.
    assert compared > 2900 and native > 0.9 * compared, (compared, native)


PROPERTY_CASES = load("property_cases.json")["cases"]


def test_every_property_filter_case_a_table_can_hold_agrees_with_rabbitmq() -> None:
    cases = []
    for props, apps, index, expected in PROPERTY_CASES:
        try:
            f = property_filter(_decoded(props), _decoded(apps))
        except FilterError:
            continue
        cases.append((f, index, expected == "true"))
    wrong, compared, native = _judge(cases)
    assert not wrong, wrong[:20]
    assert compared > 900 and native > 0.9 * compared, (compared, native)


def _decoded(raw: dict[str, object]) -> dict[str, object] | None:
    return {k: value(v) for k, v in raw.items()} or None


# -- drawn tables -----------------------------------------------------------------------------

LONGS = [0, 1, -1, 2, 5, -7, 2**53 + 1, 2**62, 2**63 - 1, -(2**63)]
DOUBLES = [0.0, -0.0, 0.5, 2.5, -1.5, 5.0, 2.0**53, 2.0**63, 1e308, math.nan, math.inf]
WORDS = ["", "a", "ab", "abc", "B", "é", "日本", "a\nb", "ab\n", "x%y", "it's"]
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def maybe(strategy: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.one_of(st.none(), strategy)


#: Column -> (type, values): the names amqp_selectors reads, one Arrow type each.
COLUMNS: dict[str, tuple[pa.DataType, st.SearchStrategy[object]]] = {
    "a": (pa.int64(), maybe(st.one_of(st.sampled_from(LONGS), st.integers(-9, 9)))),
    "b": (pa.float64(), maybe(st.one_of(st.sampled_from(DOUBLES), st.floats()))),
    "s": (pa.string(), maybe(st.sampled_from(WORDS))),
    "t": (pa.large_string(), maybe(st.sampled_from(WORDS))),
    "u": (pa.uint64(), maybe(st.sampled_from([0, 3, 2**63 - 1, 2**63, 2**64 - 1]))),
    "bin": (pa.binary(), maybe(st.one_of(st.binary(max_size=3),
                                         st.sampled_from([b"a", b"ab", b"\xc3\xa9"])))),
    "yes": (pa.bool_(), maybe(st.booleans())),
    "z": (pa.float32(), maybe(st.sampled_from([0.0, 1.5, -2.0, math.nan]))),
    "x-y": (pa.timestamp("us", tz="UTC"),
            maybe(st.integers(-(10**12), 10**12).map(lambda us: EPOCH + timedelta(
                microseconds=us)))),
    "header.priority": (pa.int32(), maybe(st.integers(0, 9))),
    "properties.subject": (pa.string(), maybe(st.sampled_from(WORDS))),
    "properties.message_id": (pa.binary(), maybe(st.binary(max_size=2))),
    "properties.group_sequence": (pa.uint32(), maybe(st.integers(0, 2**32 - 1))),
    "properties.creation_time": (pa.int64(), maybe(st.integers(0, 2**42))),
}

tables = st.integers(1, 8).flatmap(lambda size: st.fixed_dictionaries({
    name: st.lists(values, min_size=size, max_size=size)
    for name, (_, values) in COLUMNS.items()
}))


def _messages(columns: dict[str, list[object]], size: int) -> list[Message]:
    """The rows as messages built from the drawn values (not through the table)."""
    out = []
    for row in range(size):
        props, fields = {}, {}
        for name, values in columns.items():
            value = values[row]
            if name == "z" and value is not None:
                value = float(pa.scalar(value, pa.float32()).as_py())
            _, _, field = name.partition(".")
            if field:
                fields[field] = value
            else:
                props[name] = value
        out.append(Message(props, fields))
    return out


@property_settings(0.5)
@given(amqp_selectors(), tables)
def test_kernels_answer_each_row_as_the_per_message_evaluator(
    text: str, columns: dict[str, list[object]]
) -> None:
    try:
        f = msgfilter.compile(text, "amqp-sql")
    except FilterError:
        return
    # The clock moves between the evaluators' readings; one reading is compared below.
    assume(text.count("UTC()") <= 1)
    table = pa.table({name: pa.array(columns[name], COLUMNS[name][0]) for name in COLUMNS})
    expected = [f.evaluate(m) for m in _messages(columns, table.num_rows)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ma.evaluate(f, table).to_pylist() == expected
        # The same rows sliced into a second batch (offsets in every buffer).
        if table.num_rows > 1:
            assert ma.evaluate(f, table.slice(1)).to_pylist() == expected[1:]


def test_fields_read_the_columns_of_their_qualified_names_only() -> None:
    table = pa.table({
        "header.priority": pa.array([7, None], pa.int8()),
        "properties.subject": ["orders.eu", None],
        "properties": pa.array([[("properties.subject", "from the map")], []],
                               pa.map_(pa.string(), pa.string())),
    })
    def answer(text: str, layout: Layout = DEFAULT_LAYOUT) -> list[bool | None]:
        f = msgfilter.compile(text, "amqp-sql")
        assert plan_of(f, table.schema, layout) is not None
        return ma.evaluate(f, table, layout).to_pylist()

    assert answer("h.priority > 4") == [True, False]  # absent: RabbitMQ's default 4
    assert answer("header.priority = 4") == [False, True]
    assert answer("p.subject LIKE 'orders.%'") == [True, None]
    # A bracketed name is an application property: the map's entry, never the field.
    assert answer("[properties.subject] = 'from the map'") == [True, None]
    excluded = Layout(exclude=frozenset({"properties.subject"}))
    assert answer("p.subject IS NULL", excluded) == [True, True]
    rows = ma.messages(table)
    assert rows[0].headers == {"priority": 7, "subject": "orders.eu"}
    assert rows[0].properties == {"properties.subject": "from the map"}


def test_explain_says_why_a_filter_runs_row_by_row() -> None:
    table = pa.table({"a": [1]})
    big = msgfilter.compile("a < 9223372036854775808", "amqp-sql")
    assert plan_of(big, table.schema, DEFAULT_LAYOUT) is None
    assert ma.evaluate(big, table).to_pylist() == [True]
    with pytest.raises(msgfilter.backends.arrow.Unsupported, match="beyond a long"):
        msgfilter.backends.arrow.compile_arrow(big.tree, big.model, table.schema)


def test_the_index_matches_tables_with_amqp_field_columns_as_their_messages() -> None:
    table = pa.table({
        "a": [1, 2, None],
        "properties.subject": ["orders.eu", "x", None],
        "header.priority": pa.array([7, None, 1], pa.int8()),
    })
    index = SubscriptionIndex()
    filters = {
        "f": msgfilter.compile("h.priority > 4 AND p.subject LIKE 'orders.%'", "amqp-sql"),
        "g": msgfilter.compile("a * 2 = 4 OR h.priority = 4", "amqp-sql"),
        "p": property_filter({"subject": "x"}),
        "j": msgfilter.compile("a > 1"),
    }
    for key, f in filters.items():
        index.add_filter(key, f)
    found = index.match_table(table).to_pylist()
    expected = [
        {"row": row, "key": key}
        for row, m in enumerate(ma.messages(table)) for key, f in filters.items()
        if f.matches(m)
    ]
    assert found == expected
    assert [r["key"] for r in found] == ["f", "g", "p", "j"]
