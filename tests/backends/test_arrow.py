"""msgfilter.arrow: the API, the column layout, the type mapping, odd data and the plan
cache. Answers are also checked against the per-message backend where that is the rule."""

from __future__ import annotations

import dataclasses
import datetime
import math
import warnings
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest

import msgfilter
import msgfilter.arrow as ma
from msgfilter import dialects
from msgfilter.backends import arrow as backend
from msgfilter.backends.arrow import jms as jms_lowering
from msgfilter.backends.arrow import plans
from msgfilter.semantics.model import ValueModel

STRING_MAP = pa.map_(pa.string(), pa.string())


@pytest.fixture(autouse=True)
def _no_fallback() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ma.RowwiseFallbackWarning)
        yield


def answers(selector: str, data: Any, layout: ma.Layout = ma.DEFAULT_LAYOUT,
            dialect: str = "jms") -> list[bool | None]:
    result: list[bool | None] = ma.evaluate(selector, data, layout, dialect=dialect).to_pylist()
    return result


# -- the API ----------------------------------------------------------------------------------

TABLE = pa.table({"color": ["red", "blue", None], "weight": [3.0, 9.5, 4.0]})


def test_evaluate_matches_and_filter() -> None:
    f = msgfilter.compile("color = 'red' AND weight > 2.5")
    result = ma.evaluate(f, TABLE)
    assert isinstance(result, pa.BooleanArray)
    assert result.to_pylist() == [True, False, None]
    assert ma.matches(f, TABLE).to_pylist() == [True, False, False]
    assert ma.matches(f, TABLE).null_count == 0
    assert ma.filter(f, TABLE).to_pylist() == [{"color": "red", "weight": 3.0}]


def test_record_batches_give_record_batches() -> None:
    batch = TABLE.to_batches()[0]
    assert answers("weight < 5", batch) == [True, False, True]
    assert isinstance(ma.filter("weight < 5", batch), pa.RecordBatch)


def test_text_is_compiled_in_the_given_dialect() -> None:
    table = pa.table({"a": ["3"]})
    assert answers("a = 3", table) == [False]  # jms: a string is unlike a number
    assert answers("a = 3", table, dialect="rocketmq") == [True]  # converted


def test_empty_selector_matches_every_row() -> None:
    assert answers("", TABLE) == [True, True, True]
    assert answers("  ", pa.table({"x": pa.array([], pa.int64())})) == []


def test_data_must_be_a_table_or_batch() -> None:
    with pytest.raises(TypeError, match="Table or RecordBatch"):
        ma.evaluate("a = 1", {"a": [1]})


def test_a_constant_selector_gives_one_answer_per_row() -> None:
    assert answers("1 = 1", TABLE) == [True] * 3
    assert answers("NULL", TABLE) == [None] * 3
    assert answers("7 / 0 IS NULL AND NOT FALSE", TABLE) == [True] * 3


def test_plans_are_cached_per_text_schema_and_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    real = backend.compile_arrow

    def counting(tree: Any, *args: Any) -> Any:
        built.append("plan")
        return real(tree, *args)

    # The one plan cache (shared with the Spark fallback and the index) builds them.
    monkeypatch.setattr(plans, "compile_arrow", counting)
    ma.cache_clear()
    f = msgfilter.compile("weight > 1")
    for _ in range(3):
        ma.evaluate(f, TABLE)
    assert built == ["plan"]
    ma.evaluate(f, TABLE.slice(1))  # same schema
    ma.evaluate(f, TABLE, ma.Layout(typed=True, tags_column=None))  # another layout
    ma.evaluate(f, TABLE.cast(pa.schema([("color", pa.string()), ("weight", pa.float32())])))
    assert built == ["plan"] * 3


def test_signed_zero_literals_get_their_own_plans() -> None:
    # Equal as filters (0.0 == -0.0), different as selectors.
    table = pa.table({"a": ["-0.0"]})
    assert answers("a = -0.0", table, dialect="rocketmq") == [True]
    assert answers("a = 0.0", table, dialect="rocketmq") == [False]
    assert answers("a = -0.0", table, dialect="rocketmq") == [True]


# -- the layout -------------------------------------------------------------------------------


def props(*rows: Any) -> pa.Array:
    return pa.array(list(rows), STRING_MAP)


def test_an_identifier_reads_a_column_else_the_map_else_null() -> None:
    table = pa.table({
        "qty": [5, None],
        "properties": props([("region", "eu"), ("qty", "9")], None),
    })
    assert answers("qty = 5", table) == [True, None]  # the column wins, NULL included
    assert answers("region = 'eu'", table) == [True, None]
    assert answers("missing IS NULL", table) == [True, True]


def test_map_values_are_strings_as_brokers_carry_them() -> None:
    table = pa.table({"properties": props([("qty", "5")])})
    # jms: a string is unlike a number (FALSE), as for a message {"qty": "5"}.
    assert answers("qty = 5", table) == [False]
    assert msgfilter.compile("qty = 5").evaluate({"qty": "5"}) is False
    assert answers("qty = '5'", table) == [True]
    # rocketmq converts it to the literal's type.
    assert answers("qty = 5", table, dialect="rocketmq") == [True]


def test_the_last_entry_of_a_repeated_key_wins() -> None:
    table = pa.table({"properties": props([("k", "1"), ("k", "2")])})
    assert answers("k = '2'", table) == [True]
    assert ma.messages(table)[0].properties["k"] == "2"


def test_typed_false_reads_only_the_map() -> None:
    table = pa.table({"k": ["column"], "properties": props([("k", "map")])})
    assert answers("k = 'map'", table, ma.Layout(typed=False)) == [True]
    assert answers("k = 'column'", table) == [True]
    assert answers("k = 'map'", table, ma.Layout(exclude=frozenset({"k"}))) == [True]


def test_the_layouts_own_columns_are_not_properties() -> None:
    table = pa.table({"tags": ["A"], "properties": props([])})
    assert answers("tags IS NULL AND properties IS NULL", table) == [True]
    assert answers("tags = 'A'", table, ma.Layout(tags_column=None)) == [True]


def test_tags_fall_back_to_the_tags_column() -> None:
    table = pa.table({
        "tags": ["A", "B", "C", None],
        "properties": props([], [("TAGS", "X")], [("TAGS", None)], None),
    })
    # The map shadows the tag where it has the key at all (even with a NULL value), as a
    # message's property shadows its tag.
    assert answers("TAGS = 'A'", table) == [True, False, None, None]
    assert answers("TAGS = 'X'", table) == [False, True, None, None]
    got = [m.view.get("TAGS") for m in ma.messages(table)]
    assert got == ["A", "X", None, None]


def test_keys_from_a_list_or_a_string_column() -> None:
    listed = pa.table({"keys": pa.array([["k1", "k2"], [], None, ["k", None]])})
    layout = ma.Layout(keys_column="keys")
    assert answers("KEYS = 'k1 k2'", listed, layout) == [True, None, None, None]
    assert [m.view.get("KEYS") for m in ma.messages(listed, layout)] == ["k1 k2", None, None, None]
    text = pa.table({"keys": ["a b", None]})
    assert answers("KEYS = 'a b'", text, layout) == [True, None]


def test_a_properties_column_that_is_not_a_map_is_a_layout_error() -> None:
    table = pa.table({"properties": ['{"a": 1}']})
    with pytest.raises(ma.LayoutError, match="not a map"):
        ma.evaluate("a = 1", table)
    assert answers("a = 1", table, ma.Layout(properties_column=None)) == [None]
    with pytest.raises(ma.LayoutError, match="keys column"):
        ma.evaluate("KEYS = 'x'", pa.table({"keys": [1]}), ma.Layout(keys_column="keys"))


def test_map_keys_and_values_of_other_string_types() -> None:
    large = pa.map_(pa.large_string(), pa.large_string())
    table = pa.table({"properties": pa.array([[("a", "x")]], large)})
    assert answers("a = 'x' AND a LIKE 'x%' AND a IN ('x')", table) == [True]
    typed = pa.table({"properties": pa.array([[("n", 5)]], pa.map_(pa.string(), pa.int64()))})
    assert answers("n = 5", typed) == [True]


# -- the type mapping -------------------------------------------------------------------------

LONG, DOUBLE, STRING, BOOLEAN, OTHER = "long", "double", "string", "boolean", "no type"


def kind_of(selector_value: object) -> str:
    if isinstance(selector_value, ma.Opaque):
        return OTHER
    return {int: LONG, float: DOUBLE, str: STRING, bool: BOOLEAN}[type(selector_value)]


TYPES: list[tuple[str, pa.Array, str]] = [
    ("int8", pa.array([7], pa.int8()), LONG),
    ("int16", pa.array([7], pa.int16()), LONG),
    ("int32", pa.array([7], pa.int32()), LONG),
    ("int64", pa.array([7], pa.int64()), LONG),
    ("uint8", pa.array([7], pa.uint8()), LONG),
    ("uint32", pa.array([7], pa.uint32()), LONG),
    ("uint64", pa.array([7], pa.uint64()), LONG),
    ("uint64 beyond a long", pa.array([2**64 - 1], pa.uint64()), OTHER),
    ("float16", pa.array([7.0], pa.float16()), DOUBLE),
    ("float32", pa.array([7.0], pa.float32()), DOUBLE),
    ("float64", pa.array([7.0]), DOUBLE),
    ("string", pa.array(["7"]), STRING),
    ("large_string", pa.array(["7"], pa.large_string()), STRING),
    ("string_view", pa.array(["7"], pa.string_view()), STRING),
    ("dictionary", pa.array(["7"]).dictionary_encode(), STRING),
    ("run-end encoded", pa.RunEndEncodedArray.from_arrays([1], pa.array([7])), LONG),
    ("bool", pa.array([True]), BOOLEAN),
    ("decimal", pa.array([Decimal("7")]), OTHER),
    ("binary", pa.array([b"7"]), OTHER),
    ("timestamp", pa.array([datetime.datetime(2024, 1, 1)]), OTHER),
    ("date", pa.array([datetime.date(2024, 1, 1)]), OTHER),
    ("list", pa.array([[7]]), OTHER),
    ("struct", pa.array([{"x": 7}]), OTHER),
    ("map", pa.array([[("x", "7")]], STRING_MAP), OTHER),
    ("json extension", pa.array(["7"], pa.json_()), OTHER),
    ("uuid extension", pa.array([b"0123456789abcdef"], pa.uuid()), OTHER),
]

# What each selector gives for a non-NULL value of each kind (J24, J34, J37, J39).
PROBES = {
    "x = 7": {LONG: True, DOUBLE: True, STRING: False, BOOLEAN: False, OTHER: False},
    "x = '7'": {LONG: False, DOUBLE: False, STRING: True, BOOLEAN: False, OTHER: False},
    "x <> 7": {LONG: False, DOUBLE: False, STRING: False, BOOLEAN: False, OTHER: False},
    "x": {LONG: False, DOUBLE: False, STRING: False, BOOLEAN: True, OTHER: False},
    # `'7' + 1` concatenates (J31); a boolean or an odd value in arithmetic is NULL (J32).
    "x + 1 IS NULL": {LONG: False, DOUBLE: False, STRING: False, BOOLEAN: True, OTHER: True},
    "x NOT IN ('8')": {LONG: True, DOUBLE: True, STRING: True, BOOLEAN: True, OTHER: True},
    "x LIKE '%'": {LONG: False, DOUBLE: False, STRING: True, BOOLEAN: False, OTHER: False},
    "x IS NULL": {LONG: False, DOUBLE: False, STRING: False, BOOLEAN: False, OTHER: False},
}


@pytest.mark.parametrize(("label", "array", "kind"), TYPES, ids=[t[0] for t in TYPES])
def test_each_arrow_type_maps_to_one_selector_type(label: str, array: pa.Array, kind: str) -> None:
    table = pa.table({"x": array})
    assert kind_of(ma.messages(table)[0].properties["x"]) == kind
    for selector, expected in PROBES.items():
        assert answers(selector, table) == [expected[kind]], selector
    with_null = pa.table({"x": pa.concat_arrays([array, pa.nulls(1, array.type)])})
    assert answers("x IS NULL", with_null) == [False, True]


def test_float32_widens_exactly_as_java_widens_a_float() -> None:
    table = pa.table({"f": pa.array([1.1], pa.float32())})
    assert answers("f = 1.1", table) == [False]
    assert answers("f > 1.1 AND f < 1.1000001", table) == [True]


@pytest.mark.parametrize("mode", ["dense", "sparse"])
def test_union_columns_have_a_type_per_row(mode: str) -> None:
    children = [pa.array([5, None, None, None]), pa.array([None, "5", None, None]),
                pa.array([None, None, 5.0, None]), pa.array([None, None, None, True])]
    codes = pa.array([0, 1, 2, 3], pa.int8())
    if mode == "sparse":
        column = pa.UnionArray.from_sparse(codes, children)
    else:
        column = pa.UnionArray.from_dense(
            codes, pa.array([0, 1, 2, 3], pa.int32()), children
        )
    table = pa.table({"u": column})
    assert answers("u = 5", table) == [True, False, True, False]
    assert answers("u = '5'", table) == [False, True, False, False]
    assert answers("u", table) == [False, False, False, True]
    assert answers("'v' + u = 'v5.0'", table) == [False, False, True, False]
    sliced = table.slice(1, 2)
    assert answers("u = 5", sliced) == [False, True]


# -- semantics the kernels needed help with ---------------------------------------------------


def test_long_arithmetic_wraps_and_divides_like_java() -> None:
    big = pa.table({"a": [2**63 - 1, -(2**63), 7, -7], "b": [1, -1, 0, 2]})
    assert answers("a + b < 0", big)[0] is True
    assert answers("a / b = -9223372036854775808", big)[1] is True
    assert answers("a / b IS NULL", big)[2] is True
    assert answers("a / b = -3", big)[3] is True
    assert answers("a * 2 = -2", big)[0] is True


def test_double_division_is_ieee() -> None:
    table = pa.table({"x": [1.0, -1.0, 0.0], "z": [0.0, 0.0, 0.0]})
    assert answers("x / z > 1e308", table) == [True, False, False]
    assert answers("x / z < -1e308", table) == [False, True, False]
    assert answers("x / z <> x / z", table) == [False, False, True]  # NaN


def test_concatenation_writes_java_text() -> None:
    table = pa.table({"d": [1e20, 0.001, -0.0, math.nan, 1e7, 5e-324], "l": [1] * 6,
                      "b": [True] * 6})
    expected = ["1.0E20", "0.001", "-0.0", "NaN", "1.0E7", "4.9E-324"]
    for row, text in enumerate(expected):
        assert answers(f"'' + d = '{text}'", table)[row] is True, text
    assert answers("'x' + l + b = 'x1true'", table) == [True] * 6


def test_like_matches_line_breaks_and_one_code_point_per_underscore() -> None:
    table = pa.table({"s": ["a\nb", "😀", "a\\", "x%y", "ab"]})
    assert answers("s LIKE 'a_b'", table) == [True, False, False, False, False]
    assert answers("s LIKE '_'", table) == [False, True, False, False, False]
    assert answers("s LIKE '%\\'", table) == [False, False, True, False, False]
    assert answers("s LIKE 'x!%y' ESCAPE '!'", table) == [False, False, False, True, False]
    assert answers("s LIKE 'a%' AND s NOT LIKE 'a_'", table) == [True, False, False, False, False]


def test_strings_order_by_utf16_code_units() -> None:
    table = pa.table({"s": ["\uffff"], "t": ["😀"]})
    assert answers("s < t", table) == [False]  # U+FFFF > U+D83D, the emoji's first unit
    assert answers("s > t", table) == [True]


def test_in_and_like_keep_unknown_for_null() -> None:
    table = pa.table({"s": ["x", None], "n": [1, None]})
    assert answers("s IN ('x')", table) == [True, None]
    assert answers("s NOT IN ('x')", table) == [False, None]
    assert answers("n NOT IN ('x')", table) == [True, None]
    assert answers("n NOT LIKE 'x'", table) == [True, None]


# -- odd data and odd selectors ------------------------------------------------------------


def test_empty_and_chunkless_tables() -> None:
    schema = pa.schema([("a", pa.int64()), ("properties", STRING_MAP)])
    assert answers("a = 1 OR b = 'x'", schema.empty_table()) == []
    assert answers("a = 1", pa.Table.from_batches([], schema)) == []


def test_quotes_backslashes_and_code_in_names_and_literals() -> None:
    name = "x'); import os; ('"
    table = pa.table({"properties": props([(name, "it's \\ %_\n")])})
    f = msgfilter.compile("a = 'it''s \\ %_\n' OR a LIKE '%''%'")
    layout = ma.Layout()
    assert ma.evaluate(f, table, layout).to_pylist() == [None]
    assert ma.messages(table)[0].properties[name] == "it's \\ %_\n"


def test_a_literal_no_arrow_string_can_hold_is_evaluated_row_by_row() -> None:
    f = msgfilter.compile("a = '\ud800' OR b = 1")
    table = pa.table({"a": ["x"], "b": [1]})
    assert ma.evaluate(f, table).to_pylist() == [True]


def test_a_failing_kernel_falls_back_to_rows_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: Any) -> Any:
        raise pa.ArrowInvalid("simulated")

    # The jms table's comparison, as its Compare handler reads it (Lowering.compare).
    broken_table = dataclasses.replace(jms_lowering.LOWERING, compare=broken)
    monkeypatch.setitem(backend.LOWERINGS, ValueModel.JMS, broken_table)
    ma.cache_clear()
    f = msgfilter.compile("a > 1")
    table = pa.table({"a": [0, 2, None]})
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        with pytest.warns(ma.RowwiseFallbackWarning, match="row by row"):
            assert ma.evaluate(f, table).to_pylist() == [False, True, None]
    ma.cache_clear()


def test_deeply_nested_selectors() -> None:
    depth = 200
    text = "(" * depth + "a = 1" + ")" * depth
    text = " AND ".join([text] * 2) + " OR " + "NOT " * 100 + "b"
    table = pa.table({"a": [1, 2], "b": [False, True]})
    f = msgfilter.compile(text)
    assert ma.evaluate(f, table).to_pylist() == [f.evaluate({"a": 1, "b": False}),
                                                 f.evaluate({"a": 2, "b": True})]


def test_every_node_class_is_vectorised_or_documented_as_row_by_row() -> None:
    # The full check, for every backend, is tests/backends/test_backend_tables.py.
    for model, lowering in backend.LOWERINGS.items():
        kinds = set(lowering.handlers) | set(lowering.unsupported)
        assert dialects.node_kinds(model) <= kinds
        assert not set(lowering.handlers) & set(lowering.unsupported)


def test_other_dialects_run_row_by_row_with_the_same_answers() -> None:
    table = pa.table({"tags": ["TagA", "TagB", None]})
    f = msgfilter.compile("TagA || TagC", "rocketmq-tag")
    assert ma.evaluate(f, table).to_pylist() == [True, False, False]  # untagged: no match
    amq = msgfilter.compile("a % 2 = 1", "activemq")
    numbers = pa.table({"a": [1, 2, None]})
    assert ma.evaluate(amq, numbers).to_pylist() == [True, False, None]
