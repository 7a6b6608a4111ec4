"""Hypothesis: random selectors over random tables give, row by row, exactly what the
per-message backend gives for the same values written as a Python message.

The expected messages are built from the generated Python values, not through
`msgfilter.arrow.messages`, so the column type mapping is checked here too.
"""

from __future__ import annotations

import math
import warnings
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import msgfilter
import msgfilter.arrow as ma
from msgfilter import dialects
from msgfilter.backends import arrow as backend
from msgfilter.backends.arrow.compiler import Compiler, Evaluation
from msgfilter.errors import FilterError
from msgfilter.selector import SelectorFilter
from msgfilter.semantics import values as v
from msgfilter.semantics.like import compile_like
from msgfilter.semantics.model import ValueModel
from msgfilter.syntax import nodes as n
from msgfilter.syntax.unparse import unparse
from msgfilter.testing.strategies import selector_cases

# The grammar switches of the dialect (from the registry).
JMS = dialects.get("jms").grammar
assert JMS is not None

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
INTS = [0, 1, -1, 2, -2, 3, 7, -7, 10, 2**31 - 1, 2**31, 2**53 + 1, LONG_MAX, LONG_MIN]
FLOATS = [
    0.0, -0.0, 1.5, -1.5, 2.0, 3.0, 7.0, 0.1, 1e7, 1e20, 1e-5, 5e-324, 2.0**53,
    math.inf, -math.inf, math.nan,
]
FLOAT32S = [0.0, -0.0, 1.5, 2.0, 0.1, 3e38, math.inf, math.nan]
# Wildcards, an escape candidate, a quote, a line break, and the characters whose
# UTF-16 order differs from their code point order.
CHARS = "ab%_\\#\n'😀\uffff\ue000éA"

ints = st.one_of(
    st.sampled_from(INTS), st.sampled_from([0, 1, -1]), st.integers(LONG_MIN, LONG_MAX)
)
floats = st.one_of(st.sampled_from(FLOATS), st.floats(allow_nan=True, width=64))
texts = st.text(alphabet=CHARS, max_size=4)
bools = st.booleans()


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), strategy)


mixed = maybe(st.one_of(ints, floats, texts, bools))

#: name -> (arrow type or a builder, values strategy). Column names double as identifiers.
TYPED: dict[str, tuple[Any, st.SearchStrategy[Any]]] = {
    "l": (pa.int64(), maybe(ints)),
    "i": (pa.int32(), maybe(st.integers(-(2**31), 2**31 - 1))),
    "d": (pa.float64(), maybe(floats)),
    "f": (pa.float32(), maybe(st.sampled_from(FLOAT32S))),
    "s": (pa.string(), maybe(texts)),
    "t": (pa.large_string(), maybe(texts)),
    "b": (pa.bool_(), maybe(bools)),
    "z": (pa.null(), st.none()),
    "u": ("dense", mixed),
    "v": ("sparse", maybe(st.one_of(texts, st.integers(-5, 5)))),
    "c": ("dictionary", maybe(texts)),
    "o": (pa.decimal128(5, 1), maybe(st.sampled_from([Decimal("1.5"), Decimal("0")]))),
    "w": (pa.uint64(), maybe(st.sampled_from([0, 3, LONG_MAX, 2**63, 2**64 - 1]))),
}
MAP_KEYS = ["m", "k", "s", "TAGS"]
IDENTS = [*TYPED, "m", "k", "TAGS", "missing"]


def _union_children(values: list[Any]) -> list[pa.DataType]:
    return [pa.int64(), pa.float64(), pa.string(), pa.bool_()]


def _kind(value: Any) -> int:
    if isinstance(value, bool):
        return 3
    if isinstance(value, int):
        return 0
    if isinstance(value, float):
        return 1
    return 2 if isinstance(value, str) else 0


def dense_union(values: list[Any]) -> pa.Array:
    types = _union_children(values)
    codes, offsets = [], []
    children: list[list[Any]] = [[] for _ in types]
    for x in values:
        k = _kind(x)
        codes.append(k)
        offsets.append(len(children[k]))
        children[k].append(x)
    return pa.UnionArray.from_dense(
        pa.array(codes, pa.int8()),
        pa.array(offsets, pa.int32()),
        [pa.array(c, t) for c, t in zip(children, types, strict=True)],
    )


def sparse_union(values: list[Any]) -> pa.Array:
    codes = [1 if isinstance(x, int) else 0 for x in values]
    strings = [x if c == 0 else None for x, c in zip(values, codes, strict=True)]
    numbers = [x if c == 1 else None for x, c in zip(values, codes, strict=True)]
    return pa.UnionArray.from_sparse(
        pa.array(codes, pa.int8()), [pa.array(strings, pa.string()), pa.array(numbers, pa.int32())]
    )


def column(kind: Any, values: list[Any]) -> pa.Array:
    if kind == "dense":
        return dense_union(values)
    if kind == "sparse":
        return sparse_union(values)
    if kind == "dictionary":
        return pa.array(values, pa.string()).dictionary_encode()
    return pa.array(values, kind)


def python_value(name: str, value: Any) -> Any:
    """What the per-message backend is given for a generated column value."""
    if value is None:
        return None
    if name == "f":
        return float(np.float32(value))
    if name == "w" and value > LONG_MAX:
        return Decimal(value)  # no Java long: no selector type
    return value


rows_strategy = st.integers(1, 6).flatmap(
    lambda size: st.fixed_dictionaries(
        {
            **{
                name: st.lists(vals, min_size=size, max_size=size)
                for name, (_, vals) in TYPED.items()
            },
            "properties": st.lists(
                maybe(st.lists(st.tuples(st.sampled_from(MAP_KEYS), maybe(texts)), max_size=3)),
                min_size=size,
                max_size=size,
            ),
            "tags": st.lists(maybe(texts), min_size=size, max_size=size),
        }
    )
)


def build(columns: dict[str, list[Any]]) -> tuple[pa.Table, list[msgfilter.Message]]:
    arrays = {name: column(TYPED[name][0], columns[name]) for name in TYPED}
    arrays["properties"] = pa.array(columns["properties"], pa.map_(pa.string(), pa.string()))
    arrays["tags"] = pa.array(columns["tags"], pa.string())
    table = pa.table(arrays)
    messages = []
    for row in range(table.num_rows):
        props: dict[str, object] = dict(columns["properties"][row] or [])
        props.update({name: python_value(name, columns[name][row]) for name in TYPED})
        messages.append(msgfilter.Message(props, tags=columns["tags"][row]))
    return table, messages


# -- selectors --------------------------------------------------------------------------------

idents = st.sampled_from(IDENTS).map(n.Ident)
literals = st.one_of(
    ints.map(n.ExactLit),
    st.one_of(
        st.sampled_from([f for f in FLOATS if not math.isnan(f)]), st.floats(allow_nan=False)
    ).map(n.ApproxLit),
    texts.map(n.StringLit),
    bools.map(n.BoolLit),
)
values = st.recursive(
    st.one_of(idents, idents, literals),
    lambda inner: st.one_of(
        inner.map(n.Negate),
        st.builds(n.Arith, st.sampled_from(["+", "-", "*", "/"]), inner, inner),
        st.builds(n.Arith, st.just("+"), texts.map(n.StringLit), inner),
    ),
    max_leaves=4,
)


def _orderable(node: n.Expr) -> bool:
    return not isinstance(node, n.StringLit | n.BoolLit | n.NullLit)


orderable = values.filter(_orderable)


def _conditions(inner: st.SearchStrategy[n.Expr]) -> st.SearchStrategy[n.Expr]:
    return st.one_of(
        inner.map(n.Not),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: n.And(tuple(xs))),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: n.Or(tuple(xs))),
        # A condition as an operand of = / <> and IS NULL (J18, J38).
        st.builds(n.Compare, st.sampled_from(["=", "<>"]), inner, st.one_of(inner, values)),
        st.builds(n.IsNull, bools, inner),
    )


predicates = st.one_of(
    st.builds(n.Compare, st.sampled_from(["=", "<>"]), values, values),
    st.builds(n.Compare, st.sampled_from(["<", "<=", ">", ">="]), orderable, orderable),
    st.builds(n.Between, bools, orderable, orderable, orderable),
    st.builds(n.In, bools, idents, st.lists(texts, min_size=1, max_size=3).map(tuple)),
    st.builds(
        n.Like, bools, values, st.text(alphabet=CHARS, max_size=5), maybe(st.sampled_from(CHARS))
    ),
    st.builds(n.IsNull, bools, values),
    idents,
    bools.map(n.BoolLit),
    st.just(n.NullLit()),
)
conditions = st.recursive(predicates, _conditions, max_leaves=5)


def selector(text: str) -> SelectorFilter:
    f = msgfilter.compile(text)
    assert isinstance(f, SelectorFilter)
    return f


def compiled(tree: n.Expr) -> msgfilter.Filter:
    try:
        return msgfilter.compile(unparse(tree, JMS))
    except FilterError:
        assume(False)
        raise  # pragma: no cover


@pytest.fixture(autouse=True)
def _no_fallback() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ma.RowwiseFallbackWarning)
        yield


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conditions, rows_strategy, st.integers(0, 6))
def test_same_answers_as_the_per_message_backend(tree: n.Expr, columns: Any, cut: int) -> None:
    f = compiled(tree)
    table, messages = build(columns)
    want = [f.evaluate(m) for m in messages]
    assert ma.evaluate(f, table).to_pylist() == want, f.text
    # The same rows in two chunks (sliced arrays, offsets != 0) and as a RecordBatch.
    cut = min(cut, table.num_rows)
    chunked = pa.concat_tables([table.slice(0, cut), table.slice(cut)])
    assert ma.evaluate(f, chunked).to_pylist() == want, f.text
    assert ma.evaluate(f, table.to_batches()[0]).to_pylist() == want, f.text
    assert ma.matches(f, table).to_pylist() == [w is True for w in want]


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=CHARS, max_size=6),
    maybe(st.sampled_from(CHARS)),
    st.lists(texts | st.text(max_size=5), min_size=1, max_size=8),
)
def test_like_with_escape_matches_the_reference_matcher(
    pattern: str, escape: str | None, strings: list[str]
) -> None:
    strings = [s for s in strings if not any("\ud800" <= ch <= "\udfff" for ch in s)]
    assume(strings)
    tree = n.Like(False, n.Ident("s"), pattern, escape)
    f = compiled(tree)
    got = ma.evaluate(f, pa.table({"s": strings})).to_pylist()
    assert got == [compile_like(pattern, escape)(s) for s in strings]


some_texts = st.text(alphabet="a😀\U00010000\uffff\ue000\ud7ff\x00", max_size=3) | st.text(
    max_size=4
)


@settings(max_examples=200, deadline=None)
@given(st.lists(some_texts, min_size=1, max_size=6), st.lists(some_texts, min_size=1, max_size=6))
def test_string_ordering_is_by_utf16_code_units(left: list[str], right: list[str]) -> None:
    size = min(len(left), len(right))
    pairs = [(a, b) for a, b in zip(left[:size], right[:size], strict=True)
             if not any("\ud800" <= ch <= "\udfff" for ch in a + b)]
    assume(pairs)
    table = pa.table({"a": [a for a, _ in pairs], "b": [b for _, b in pairs]})
    for op in ("<", "<=", ">", ">="):
        f = msgfilter.compile(f"a {op} b")
        assert ma.evaluate(f, table).to_pylist() == [f.evaluate({"a": a, "b": b}) for a, b in pairs]


# -- values, not only conditions ---------------------------------------------------------------


def reference_value(node: n.Expr, message: msgfilter.Message) -> object:
    """The dialect's value of a value expression, straight from semantics/values.py."""
    if isinstance(node, n.Ident):
        return message.view.get(node.name)
    if isinstance(node, n.NullLit):
        return None
    if isinstance(node, n.StringLit | n.ExactLit | n.ApproxLit | n.BoolLit):
        return node.value
    if isinstance(node, n.Negate):
        return v.negate(reference_value(node.operand, message))
    assert isinstance(node, n.Arith)
    left, right = reference_value(node.left, message), reference_value(node.right, message)
    return v.ARITHMETIC[node.op](left, right)


def comparable(value: object) -> object:
    """A value with its type, NaN equal to itself and -0.0 apart from 0.0."""
    if value is None:
        return None
    if type(value) is float:
        return ("D", "nan" if math.isnan(value) else (value, math.copysign(1.0, value)))
    if type(value) in (int, str, bool):
        return (type(value).__name__, value)
    return "no selector type"


def arrow_values(tree: n.Expr, table: pa.Table) -> list[object]:
    lowering = backend.LOWERINGS[ValueModel.JMS]
    compiler = Compiler(table.schema, backend.DEFAULT_LAYOUT, lowering)
    parts = compiler.value(tree)(Evaluation(table))
    length = table.num_rows
    columns = {}
    for kind, datum in parts.items():
        if isinstance(datum, pa.Scalar):
            datum = pa.repeat(datum, length)
        columns[kind] = datum.to_pylist()
    out: list[object] = []
    for row in range(length):
        found: object = None
        for kind, column_values in columns.items():
            if column_values[row] is not None:
                found = "no selector type" if kind == "O" else comparable(column_values[row])
                break
        out.append(found)
    return out


numeric_leaves = st.one_of(
    st.sampled_from(["l", "i", "d", "f", "u", "w", "s"]).map(n.Ident),
    st.sampled_from([0, 1, -1, 2, -7, LONG_MIN, LONG_MAX]).map(n.ExactLit),
    st.sampled_from([0.0, -0.0, 1.5, math.inf]).map(n.ApproxLit),
)
arithmetic = st.recursive(
    numeric_leaves,
    lambda inner: st.one_of(
        inner.map(n.Negate), st.builds(n.Arith, st.sampled_from(["+", "-", "*", "/"]), inner, inner)
    ),
    max_leaves=3,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(values, arithmetic), rows_strategy)
def test_values_are_the_dialects_values(tree: n.Expr, columns: Any) -> None:
    # Arithmetic (wrapping, division, promotion), negation and concatenation with the
    # Java text of every type, compared as values rather than through a condition.
    table, messages = build(columns)
    want = [comparable(reference_value(tree, m)) for m in messages]
    assert arrow_values(tree, table) == want, unparse(tree, JMS)


@pytest.mark.parametrize(
    ("left", "right"),
    [(LONG_MIN, -1), (7, 2), (-7, 2), (7, -2), (-7, -2), (5, 0), (0, 0), (LONG_MAX, -1), (1, 3)],
)
def test_long_division_is_javas(left: int, right: int) -> None:
    table = pa.table({"a": [left], "b": [right]})
    for text in ("a / b", f"a / {right}" if right >= 0 else f"a / ({right})"):
        tree = selector(f"({text}) IS NULL").tree
        assert isinstance(tree, n.IsNull)
        assert arrow_values(tree.operand, table) == [comparable(v.div(left, right))]


# -- the library's own strategies ----------------------------------------------------------------

ARROW_OF_KIND = {
    "long": pa.int64(), "double": pa.float64(), "string": pa.string(),
    "boolean": pa.bool_(), "null": pa.null(),
}
NAMES = ("a", "b", "s", "JMSPriority", "über")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_library_selector_cases_over_typed_columns(data: st.DataObject) -> None:
    # msgfilter.testing's selectors come with messages whose values are often the
    # selector's own literals, IN items and LIKE matches; one column type per name.

    kinds = data.draw(st.fixed_dictionaries({name: st.sampled_from(list(ARROW_OF_KIND))
                                             for name in NAMES}))
    text, found = data.draw(
        selector_cases(identifiers=NAMES, types=kinds, max_messages=6), label="case"
    )
    f = selector(text)
    # A literal's value can stand in a message beyond what an int64 column holds (the
    # 2**63 of `-9223372036854775808`): Arrow cannot represent that message.
    assume(all(
        -(2**63) <= v < 2**63 for m in found for v in m.values() if type(v) is int
    ))
    table = pa.table(
        {name: pa.array([m.get(name) for m in found], ARROW_OF_KIND[kinds[name]])
         for name in NAMES}
    )
    assert ma.evaluate(f, table).to_pylist() == [f.evaluate(m) for m in found], text
