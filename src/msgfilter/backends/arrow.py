"""Checked AST -> a plan of `pyarrow.compute` kernel calls over a Table or RecordBatch.

A plan is built once per (filter, schema, layout) and evaluates a whole table with a
handful of kernel calls per node: no Python runs per row, except where a rule below says
so (a double written as text, J31, is converted once per distinct value).

Values. An Arrow column has one type, but a selector value can take a different selector
type in each row (a union column, a map value, `'a' + x` of such a value), so a value is
held as `Parts`: one datum (array, chunked array or scalar) per selector type that can
occur, each null in the rows where the value has another type or is NULL:

    L  Java long    int64            D  Java double   float64
    S  string       (large_)string   B  boolean       bool
    O  a value of no selector type: a bool datum, TRUE in those rows

A NULL value has no part at all in that row; the literal NULL has no parts. Operators
work on each pair of parts that can meet and merge the results with `coalesce`; the
parts of a statically typed column are just the column, so the common case is one
kernel call per operator. A condition is a bool datum with null for UNKNOWN, and is the
`B` part when it is used as a value (an operand of `=` or IS NULL, J18, J38).

Where Arrow's kernels differ from the dialect the plan corrects them: integer division
truncates like Java but raises on a zero divisor and gives 0 for MIN / -1 (J30 wants
NULL and MIN); strings order by UTF-8 bytes, which is code point order, while J27 wants
UTF-16 code units, so ordering comparisons of strings compare a byte key that moves
U+E000..U+FFFF above the supplementary planes; `is_in` is FALSE, not NULL, for a null
input; LIKE patterns are rewritten into an anchored RE2
regular expression (or a prefix/suffix/substring test) built from `parse_like`'s
segments.

The `jms` dialect compiles through `_HANDLERS`, the `rocketmq` dialect (string
properties converted to the literal's type, throws that abort a message) through
`_ROCKETMQ_HANDLERS`; any other dialect, and node classes neither table has, raise
`Unsupported` and are evaluated row by row by the caller.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

import pyarrow as pa
import pyarrow.compute as pc

from ..message import KEYS_PROPERTY, TAGS_PROPERTY
from ..semantics import rocketmq as rq
from ..semantics import values as v
from ..semantics.like import parse_like
from ..syntax import nodes as n
from ..syntax.grammar import Grammar

#: An array, a chunked array or a scalar: what the compute kernels accept.
Datum: TypeAlias = Any
#: A value split by selector type (see the module docstring).
Parts: TypeAlias = dict[str, Datum]
#: One compiled node: the value (or condition) it computes over one evaluation.
ValueFn: TypeAlias = Callable[["_Eval"], Parts]
CondFn: TypeAlias = Callable[["_Eval"], Datum]

LONG, DOUBLE, STRING, BOOLEAN, OTHER = "L", "D", "S", "B", "O"
_NUMERIC = frozenset({LONG, DOUBLE})
_LONG_MAX = 2**63 - 1

_TRUE = pa.scalar(True, pa.bool_())
_FALSE = pa.scalar(False, pa.bool_())
_NULL_BOOL = pa.scalar(None, pa.bool_())
_NULL_LONG = pa.scalar(None, pa.int64())
_ONE = pa.scalar(1, pa.int64())


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a table keeps the message properties a selector reads.

    An identifier resolves, for the whole table, to

    1. the top-level column of that name, when `typed` is true and the column is not
       one of the layout's own columns (`properties_column`, `tags_column`,
       `keys_column`) nor in `exclude` (with several columns of one name, the first);
    2. otherwise the value under that key in the `properties_column` map, in each row
       where the map has the key (the last entry wins if a key repeats), else NULL;
    3. `TAGS` and `KEYS` (RocketMQ) fall back, in rows whose map lacks the key, to
       `tags_column` and `keys_column` (a string, or a list of strings joined by
       spaces; an empty list is NULL);
    4. otherwise NULL.

    Map values have the map's value type, normally string, as brokers carry them: in
    the `jms` dialect a string compared with a number is FALSE, exactly as for a
    message whose property is that string.
    """

    properties_column: str | None = "properties"
    typed: bool = True
    tags_column: str | None = "tags"
    keys_column: str | None = None
    exclude: frozenset[str] = frozenset()

    def reserved(self) -> frozenset[str]:
        """Top-level columns that are never read as properties by their name."""
        own = {self.properties_column, self.tags_column, self.keys_column} - {None}
        return self.exclude | frozenset(own)  # type: ignore[arg-type]


DEFAULT_LAYOUT = Layout()


@dataclass(frozen=True, slots=True)
class Opaque:
    """A value of no selector type, as `messages()` shows it to the per-message
    backend: unlike every value, NULL in arithmetic, FALSE as a condition (J21)."""

    value: object


class LayoutError(ValueError):
    """The table does not have the shape the layout describes."""


class Unsupported(NotImplementedError):
    """A selector the kernels cannot evaluate; callers evaluate it row by row."""


# -- column types -> parts ---------------------------------------------------------------


def _other(datum: Datum) -> Parts:
    return {OTHER: pc.if_else(pc.is_valid(datum), _TRUE, _NULL_BOOL)}


def _as_large_string(datum: Datum) -> Datum:
    if datum.type == pa.large_string():
        return datum
    return pc.cast(datum, pa.large_string())


def _merge(all_parts: Iterable[Parts]) -> Parts:
    """Parts of disjoint values (each row has at most one) combined into one value."""
    by_kind: dict[str, list[Datum]] = {}
    for parts in all_parts:
        for kind, datum in parts.items():
            by_kind.setdefault(kind, []).append(datum)
    merged: Parts = {}
    for kind, data in by_kind.items():
        if len(data) == 1:
            merged[kind] = data[0]
            continue
        if kind == STRING and len({d.type for d in data}) > 1:
            data = [_as_large_string(d) for d in data]
        merged[kind] = pc.coalesce(*data)
    return merged


def _masked(parts: Parts, mask: Datum) -> Parts:
    """`parts` kept where `mask` is true, NULL elsewhere."""
    return {k: pc.if_else(mask, d, pa.scalar(None, d.type)) for k, d in parts.items()}


def decomposer(dtype: pa.DataType) -> Callable[[Datum], Parts]:
    """The function that splits a column of type `dtype` into parts (the type table
    of docs/arrow.md)."""
    t = pa.types
    if t.is_int64(dtype):
        return lambda d: {LONG: d}
    if t.is_uint64(dtype):
        return _uint64_parts
    if t.is_integer(dtype):
        return lambda d: {LONG: pc.cast(d, pa.int64())}
    if t.is_float64(dtype):
        return lambda d: {DOUBLE: d}
    if t.is_floating(dtype):
        # Exact widening, as Java widens a float: a float32 1.1 is 1.100000023841858.
        return lambda d: {DOUBLE: pc.cast(d, pa.float64())}
    if t.is_string(dtype) or t.is_large_string(dtype):
        return lambda d: {STRING: d}
    if t.is_string_view(dtype):
        return lambda d: {STRING: pc.cast(d, pa.large_string())}
    if t.is_boolean(dtype):
        return lambda d: {BOOLEAN: d}
    if t.is_null(dtype):
        return lambda d: {}
    if t.is_dictionary(dtype):
        inner = decomposer(dtype.value_type)
        return lambda d: inner(pc.cast(d, dtype.value_type))
    if t.is_run_end_encoded(dtype):
        decoded = decomposer(dtype.value_type)
        return lambda d: decoded(pc.run_end_decode(d))
    if t.is_union(dtype):
        return functools.partial(_union_parts, dtype)
    return _other


def _uint64_parts(datum: Datum) -> Parts:
    # Values above Long.MAX_VALUE are no Java long: no selector type (documented).
    big = pc.greater(datum, pa.scalar(_LONG_MAX, pa.uint64()))
    small = pc.if_else(big, pa.scalar(None, pa.uint64()), datum)
    return {
        LONG: pc.cast(small, pa.int64()),
        OTHER: pc.if_else(big, _TRUE, _NULL_BOOL),
    }


def _union_parts(dtype: pa.DataType, datum: Datum) -> Parts:
    array = datum.combine_chunks() if isinstance(datum, pa.ChunkedArray) else datum
    if isinstance(array, pa.Scalar):  # pragma: no cover - columns are never scalars
        array = pa.array([array.as_py()], dtype)
    length, offset = len(array), array.offset
    buffers = array.buffers()
    # `type_codes` and `offsets` of a sliced union ignore the slice offset: read the
    # buffers ourselves.
    codes = pa.Array.from_buffers(pa.int8(), length, [None, buffers[1]], offset=offset)
    dense = dtype.mode == "dense"
    if dense:
        offsets = pa.Array.from_buffers(pa.int32(), length, [None, buffers[2]], offset=offset)
    pieces: list[Parts] = []
    for index, code in enumerate(dtype.type_codes):
        child = array.field(index)
        mask = pc.equal(codes, pa.scalar(code, pa.int8()))
        if dense:
            child = pc.take(child, pc.if_else(mask, offsets, pa.scalar(None, pa.int32())))
            parts = decomposer(child.type)(child)
        else:
            parts = _masked(decomposer(child.type)(child), mask)
        pieces.append(parts)
    return _merge(pieces)


# -- one evaluation ------------------------------------------------------------------------


class _Eval:
    """The data of one evaluation and the identifier values already read from it."""

    __slots__ = ("data", "values")

    def __init__(self, data: Any) -> None:
        self.data = data
        self.values: dict[str, Parts] = {}


Reader = Callable[[Any], Parts]


def _column_reader(index: int, dtype: pa.DataType) -> Reader:
    split = decomposer(dtype)
    return lambda data: split(data.column(index))


def _map_lookup(index: int, key: pa.Scalar, occurrence: str) -> Callable[[Any], Datum]:
    return lambda data: pc.map_lookup(data.column(index), key, occurrence)


def keys_joiner(column: str, dtype: pa.DataType) -> Callable[[Datum], Datum] | None:
    """KEYS text from a keys column: a string as it is (None: nothing to do), a list of
    strings joined by spaces (NULL when the list is empty or holds a NULL); any other
    type is a LayoutError."""
    t = pa.types
    if t.is_string(dtype) or t.is_large_string(dtype):
        return None
    if t.is_list(dtype) or t.is_large_list(dtype):
        item = dtype.value_type
        if t.is_string(item) or t.is_large_string(item):

            def join(datum: Datum) -> Datum:
                joined = pc.binary_join(datum, pa.scalar(" ", item))
                empty = pc.equal(pc.list_value_length(datum), 0)
                return pc.if_else(empty, pa.scalar(None, joined.type), joined)

            return join
    raise LayoutError(f"keys column {column!r} is {dtype}, not a string or a list of strings")


def resolver(name: str, schema: pa.Schema, layout: Layout) -> Reader:
    """How the value of identifier `name` is read from tables of `schema`."""
    names = schema.names
    if layout.typed and name not in layout.reserved() and name in names:
        index = names.index(name)
        return _column_reader(index, schema.field(index).type)
    from_map = _map_reader(name, schema, layout)
    fallback_column = {TAGS_PROPERTY: layout.tags_column, KEYS_PROPERTY: layout.keys_column}
    column = fallback_column.get(name)
    if column is None or column not in names:
        return from_map if from_map is not None else (lambda data: {})
    index = names.index(column)
    dtype = schema.field(index).type
    joiner = keys_joiner(column, dtype) if name == KEYS_PROPERTY else None
    read_fallback: Reader
    if joiner is not None:
        split, join = decomposer(pa.large_string()), joiner
        read_fallback = lambda data: split(_as_large_string(join(data.column(index))))  # noqa: E731
    else:
        read_fallback = _column_reader(index, dtype)
    if from_map is None or layout.properties_column is None:
        return read_fallback
    map_index = names.index(layout.properties_column)
    key = pa.scalar(name, schema.field(map_index).type.key_type)
    has_key = _map_lookup(map_index, key, "all")

    def read_either(data: Any) -> Parts:
        # The map wins where it has the key at all, even with a NULL value, as
        # Message.view lets a property shadow the tag.
        present = pc.is_valid(has_key(data))
        return _merge(
            (_masked(from_map(data), present), _masked(read_fallback(data), pc.invert(present)))
        )

    return read_either


def _map_reader(name: str, schema: pa.Schema, layout: Layout) -> Reader | None:
    column = layout.properties_column
    if column is None or column not in schema.names:
        return None
    index = schema.names.index(column)
    dtype = schema.field(index).type
    check_properties_type(column, dtype)
    key = pa.scalar(name, dtype.key_type)
    lookup = _map_lookup(index, key, "last")
    split = decomposer(dtype.item_type)
    return lambda data: split(lookup(data))


def check_properties_type(column: str, dtype: pa.DataType) -> None:
    """LayoutError unless `dtype` is a map keyed by strings."""
    if not pa.types.is_map(dtype) or not (
        pa.types.is_string(dtype.key_type) or pa.types.is_large_string(dtype.key_type)
    ):
        raise LayoutError(
            f"column {column!r} is {dtype}, not a map<string, ...> of properties; "
            "name the map column with Layout(properties_column=...) or pass None"
        )


# -- helpers over parts ----------------------------------------------------------------------


def _or_all(data: list[Datum]) -> Datum:
    return functools.reduce(pc.or_, data)


def present(parts: Parts) -> Datum:
    """TRUE in the rows where the value is not NULL (never null itself)."""
    if not parts:
        return _FALSE
    return _or_all([pc.is_valid(d) for d in parts.values()])


def _false_unless_null(*values: Parts) -> Datum:
    """FALSE where every value is present, UNKNOWN where one is NULL."""
    if any(not p for p in values):
        return _NULL_BOOL
    both = functools.reduce(pc.and_, [present(p) for p in values])
    return pc.if_else(both, _FALSE, _NULL_BOOL)


def _first(results: list[Datum]) -> Datum:
    return results[0] if len(results) == 1 else pc.coalesce(*results)


def as_condition(parts: Parts) -> Datum:
    """J39: a boolean is itself, NULL is UNKNOWN, any other value is FALSE."""
    if not parts:
        return _NULL_BOOL
    boolean = parts.get(BOOLEAN)
    if boolean is not None and len(parts) == 1:
        return boolean
    others = _false_unless_null({k: d for k, d in parts.items() if k != BOOLEAN})
    return others if boolean is None else pc.coalesce(boolean, others)


def _to_double(datum: Datum) -> Datum:
    if isinstance(datum, pa.Scalar):
        value = datum.as_py()
        return pa.scalar(None if value is None else v.to_double(value), pa.float64())
    # Unsafe: a long beyond 2**53 rounds to the nearest double, as Java widens it.
    return pc.cast(datum, pa.float64(), safe=False)


def _same_strings(a: Datum, b: Datum) -> tuple[Datum, Datum]:
    if a.type == b.type:
        return a, b
    return _as_large_string(a), _as_large_string(b)


def utf16_key(datum: Datum) -> Datum:
    """Bytes that order like Java's String.compareTo (UTF-16 code units).

    UTF-8 bytes order by code point; UTF-16 differs only in putting U+E000..U+FFFF
    above the supplementary planes (their surrogates are D800..DFFF). Those characters
    are the only ones led by the bytes EE and EF (continuation bytes are 80..BF), and
    the supplementary ones by F0..F4: renaming EE, EF to F5, F6 (never in UTF-8) gives
    the UTF-16 order byte by byte.
    """
    key = pc.cast(_as_large_string(datum), pa.large_binary())
    key = pc.replace_substring(key, b"\xee", b"\xf5")
    return pc.replace_substring(key, b"\xef", b"\xf6")


_KERNELS: dict[str, Callable[[Datum, Datum], Datum]] = {
    "=": pc.equal, "<>": pc.not_equal, "<": pc.less,
    "<=": pc.less_equal, ">": pc.greater, ">=": pc.greater_equal,
}


def _compare_pair(op: str, ka: str, a: Datum, kb: str, b: Datum) -> Datum | None:
    """`a op b` for one pair of parts; None when the types are unlike (J24)."""
    kernel = _KERNELS[op]
    if ka in _NUMERIC and kb in _NUMERIC:
        if ka != kb:
            a, b = _to_double(a), _to_double(b)
        return kernel(a, b)
    if ka != kb or ka == OTHER:
        return None
    if ka == STRING:
        if op in ("=", "<>"):
            return kernel(*_same_strings(a, b))
        return kernel(utf16_key(a), utf16_key(b))
    return kernel(a, b)


def compare(op: str, a: Parts, b: Parts) -> Datum:
    """J24-J27: like types compare, unlike ones are FALSE, a NULL makes it UNKNOWN."""
    results: list[Datum] = []
    unlike = False
    for ka, da in a.items():
        for kb, db in b.items():
            result = _compare_pair(op, ka, da, kb, db)
            if result is None:
                unlike = True
            else:
                results.append(result)
    if unlike or not results:
        results.append(_false_unless_null(a, b))
    return _first(results)


# -- arithmetic --------------------------------------------------------------------------


def _long_divide(a: Datum, b: Datum) -> Datum:
    """J30 on longs: truncation toward zero, MIN / -1 = MIN, a zero divisor NULL."""
    if isinstance(b, pa.Scalar):
        divisor = b.as_py()
        if divisor is None or divisor == 0:
            return _NULL_LONG
        # Arrow's divide gives 0 for MIN / -1; negation wraps to MIN as Java does.
        return pc.negate(a) if divisor == -1 else pc.divide(a, b)
    zero = pc.equal(b, 0)
    minus_one = pc.equal(b, -1)
    safe = pc.if_else(pc.or_(zero, minus_one), _ONE, b)
    quotient = pc.if_else(minus_one, pc.negate(a), pc.divide(a, safe))
    return pc.if_else(zero, _NULL_LONG, quotient)


# Unchecked kernels wrap around at 64 bits, as Java's long arithmetic does (J23).
_LONG_ARITH: dict[str, Callable[[Datum, Datum], Datum]] = {
    "+": pc.add, "-": pc.subtract, "*": pc.multiply, "/": _long_divide,
}
# Float division by zero is IEEE (±inf, NaN) in Arrow: no fix-up needed.
_DOUBLE_ARITH: dict[str, Callable[[Datum, Datum], Datum]] = {
    "+": pc.add, "-": pc.subtract, "*": pc.multiply, "/": pc.divide,
}


def double_text(datum: Datum) -> Datum:
    """Java's Double.toString of each value (J31), computed once per distinct value.

    No kernel writes Java's format (shortest digits, `1.0E20`, `-0.0`); the distinct
    doubles of a column are usually few, and `unique`/`index_in` keep -0.0 and 0.0
    apart, so Python writes each distinct one and `take` spreads them over the rows.
    """
    if isinstance(datum, pa.Scalar):
        value = datum.as_py()
        return pa.scalar(None if value is None else v.java_double_text(value), pa.large_string())
    distinct = pc.unique(datum)
    texts = pa.array(
        [None if x is None else v.java_double_text(x) for x in distinct.to_pylist()],
        pa.large_string(),
    )
    return pc.take(texts, pc.index_in(datum, value_set=distinct))


def java_text(kind: str, datum: Datum) -> Datum | None:
    """J31: the text `'s' + x` appends for a part of kind `kind`; None for no text."""
    if kind == STRING:
        return _as_large_string(datum)
    if kind == LONG:
        return pc.cast(datum, pa.large_string())
    if kind == BOOLEAN:
        return pc.if_else(datum, pa.scalar("true", pa.large_string()),
                          pa.scalar("false", pa.large_string()))
    if kind == DOUBLE:
        return double_text(datum)
    return None


def arithmetic(op: str, a: Parts, b: Parts) -> Parts:
    """J29-J32: numbers by Java promotion, `string + x` concatenates, else NULL."""
    out: dict[str, list[Datum]] = {}
    for ka, da in a.items():
        for kb, db in b.items():
            if ka in _NUMERIC and kb in _NUMERIC:
                if ka == kb == LONG:
                    out.setdefault(LONG, []).append(_LONG_ARITH[op](da, db))
                else:
                    out.setdefault(DOUBLE, []).append(
                        _DOUBLE_ARITH[op](_to_double(da), _to_double(db))
                    )
            elif ka == STRING and op == "+":
                text = java_text(kb, db)
                if text is not None:
                    joined = pc.binary_join_element_wise(
                        _as_large_string(da), text, pa.scalar("", pa.large_string())
                    )
                    out.setdefault(STRING, []).append(joined)
    return {kind: _first(data) for kind, data in out.items()}


def negate(a: Parts) -> Parts:
    """J19: numbers negate (a long wraps), anything else is NULL."""
    return {k: pc.negate(d) for k, d in a.items() if k in _NUMERIC}


# -- string predicates -----------------------------------------------------------------------


def string_test(parts: Parts, test: Callable[[Datum], Datum]) -> Datum:
    """`test` on the string rows (it must keep NULL for NULL), FALSE on other values,
    UNKNOWN on NULL: LIKE (J37) and IN (J34) before any NOT."""
    string = parts.get(STRING)
    if string is None:
        return _false_unless_null(parts)
    hit = test(string)
    if len(parts) == 1:
        return hit
    return pc.coalesce(hit, _false_unless_null({k: d for k, d in parts.items() if k != STRING}))


def _regex_char(ch: str | None) -> str:
    if ch is None:
        return "."
    if ch.isascii() and ch.isalnum():
        return ch
    # Every other character spelled by its code point: nothing in it can be syntax.
    return f"\\x{{{ord(ch):X}}}"


def like_regex(pattern: str, escape: str | None) -> str:
    """An RE2 regular expression matching exactly the strings the LIKE pattern matches
    (J36): anchored at each end without a `%`, `.` matching line breaks and one code
    point, each literal character written as `\\x{...}` so none is syntax."""
    parts = ["".join(_regex_char(ch) for ch in seg) for seg in parse_like(pattern, escape).segments]
    # A leading or trailing `%` is an unanchored end: RE2 searches faster than `\\A.*`.
    start, end = "\\A", "\\z"
    if len(parts) > 1 and not parts[0]:
        start, parts = "", parts[1:]
    if len(parts) > 1 and not parts[-1]:
        end, parts = "", parts[:-1]
    return f"(?s){start}{'.*'.join(parts)}{end}"


def _like_test(pattern: str, escape: str | None) -> Callable[[Datum], Datum]:
    """The fastest kernel for the pattern's shape: equality, prefix, suffix or
    substring where it has one literal part and `%` only at its ends, else an RE2
    regular expression (linear time). Not `match_like`: it mishandles an escaped
    backslash (`%\\\\` does not match a string ending in a backslash)."""
    segments = parse_like(pattern, escape).segments
    literal = [None if None in seg else "".join(seg) for seg in segments]  # type: ignore[arg-type]
    if len(segments) == 1 and literal[0] is not None:
        text = literal[0]
        return lambda s: pc.equal(s, pa.scalar(text, pa.string()))
    if len(segments) == 2 and literal[0] is not None and literal[1] == "":
        prefix = literal[0]
        return lambda s: pc.starts_with(s, prefix)
    if len(segments) == 2 and literal[0] == "" and literal[1] is not None:
        suffix = literal[1]
        return lambda s: pc.ends_with(s, suffix)
    if len(segments) == 3 and literal[0] == literal[2] == "" and literal[1] is not None:
        needle = literal[1]
        return lambda s: pc.match_substring(s, needle)
    regex = like_regex(pattern, escape)
    return lambda s: pc.match_substring_regex(s, regex)


#: Up to this many items, IN is an OR of equalities (NULL stays UNKNOWN without a fix-up).
#: From two items on, hashing each row once (is_in) was faster here: equality of strings
#: of one length costs a memcmp with an unpredictable branch per row.
_SMALL_IN = 1


def _in_test(items: tuple[str, ...]) -> Callable[[Datum], Datum]:
    distinct = sorted(set(items))
    if len(distinct) <= _SMALL_IN:
        scalars = [pa.scalar(item, pa.string()) for item in distinct]
        return lambda s: functools.reduce(pc.or_kleene, [pc.equal(s, k) for k in scalars])
    sets: dict[pa.DataType, pa.Array] = {}

    def test(s: Datum) -> Datum:
        value_set = sets.get(s.type)
        if value_set is None:
            value_set = sets.setdefault(s.type, pa.array(items, s.type))
        hit = pc.is_in(s, value_set=value_set)
        # is_in says FALSE for a null input; IN on NULL is UNKNOWN (J34).
        return pc.if_else(pc.is_valid(s), hit, _NULL_BOOL)

    return test


# -- the compiler --------------------------------------------------------------------------


#: A node handler: (compiler, node) -> the function computing the node's value or condition.
Handler: TypeAlias = Callable[[Any, Any], Callable[["_Eval"], Any]]


@dataclass
class _Compiler:
    schema: pa.Schema
    layout: Layout
    dialect: Grammar

    def value(self, node: n.Expr) -> ValueFn:
        return _handlers(_HANDLERS, node)[0](self, node)

    def cond(self, node: n.Expr) -> CondFn:
        return _handlers(_HANDLERS, node)[1](self, node)

    def read(self, name: str) -> ValueFn:
        reader = resolver(name, self.schema, self.layout)

        def read(ev: _Eval) -> Parts:
            found = ev.values.get(name)
            if found is None:
                found = ev.values[name] = reader(ev.data)
            return found

        return read


def _handlers(
    table: Mapping[type[n.Node], tuple[Handler, Handler]], node: n.Node
) -> tuple[Handler, Handler]:
    found = table.get(type(node))
    if found is None:
        raise Unsupported(f"{type(node).__name__} is evaluated row by row")
    return found


def _value_as_condition(c: _Compiler, node: n.Expr) -> CondFn:
    value = c.value(node)
    return lambda ev: as_condition(value(ev))


def _condition_as_value(c: _Compiler, node: n.Expr) -> ValueFn:
    cond = c.cond(node)
    return lambda ev: {BOOLEAN: cond(ev)}


def _literal_value(c: _Compiler, node: n.Expr) -> ValueFn:
    parts: Parts
    if isinstance(node, n.StringLit):
        parts = {STRING: pa.scalar(node.value, pa.string())}
    elif isinstance(node, n.BoolLit):
        parts = {BOOLEAN: pa.scalar(node.value, pa.bool_())}
    elif isinstance(node, n.ExactLit):
        parts = {LONG: pa.scalar(node.value, pa.int64())}
    elif isinstance(node, n.ApproxLit):
        parts = {DOUBLE: pa.scalar(node.value, pa.float64())}
    else:
        parts = {}
    return lambda ev: parts


def _ident_value(c: _Compiler, node: n.Ident) -> ValueFn:
    return c.read(node.name)


def _negate_value(c: _Compiler, node: n.Negate) -> ValueFn:
    operand = c.value(node.operand)
    return lambda ev: negate(operand(ev))


def _arith_value(c: _Compiler, node: n.Arith) -> ValueFn:
    left, right, op = c.value(node.left), c.value(node.right), node.op
    return lambda ev: arithmetic(op, left(ev), right(ev))


def _compare_cond(c: _Compiler, node: n.Compare) -> CondFn:
    left, right, op = c.value(node.left), c.value(node.right), node.op
    return lambda ev: compare(op, left(ev), right(ev))


def _between_cond(c: _Compiler, node: n.Between) -> CondFn:
    # J33: e >= lo AND e <= hi; NOT BETWEEN: e < lo OR e > hi. e is computed once.
    operand, low, high = c.value(node.operand), c.value(node.low), c.value(node.high)
    if node.negated:

        def outside(ev: _Eval) -> Datum:
            e = operand(ev)
            return pc.or_kleene(compare("<", e, low(ev)), compare(">", e, high(ev)))

        return outside

    def inside(ev: _Eval) -> Datum:
        e = operand(ev)
        return pc.and_kleene(compare(">=", e, low(ev)), compare("<=", e, high(ev)))

    return inside


def _negated(negated: bool, cond: CondFn) -> CondFn:
    return (lambda ev: pc.invert(cond(ev))) if negated else cond


def _in_cond(c: _Compiler, node: n.In) -> CondFn:
    operand, test = c.value(node.operand), _in_test(node.items)
    return _negated(node.negated, lambda ev: string_test(operand(ev), test))


def _like_cond(c: _Compiler, node: n.Like) -> CondFn:
    operand, test = c.value(node.operand), _like_test(node.pattern, node.escape)
    return _negated(node.negated, lambda ev: string_test(operand(ev), test))


def _is_null_cond(c: _Compiler, node: n.IsNull) -> CondFn:
    operand = c.value(node.operand)
    if node.negated:
        return lambda ev: present(operand(ev))
    return lambda ev: pc.invert(present(operand(ev)))


def _not_cond(c: _Compiler, node: n.Not) -> CondFn:
    operand = c.cond(node.operand)
    return lambda ev: pc.invert(operand(ev))


def _and_cond(c: _Compiler, node: n.And) -> CondFn:
    operands = [c.cond(o) for o in node.operands]
    return lambda ev: functools.reduce(pc.and_kleene, [o(ev) for o in operands])


def _or_cond(c: _Compiler, node: n.Or) -> CondFn:
    operands = [c.cond(o) for o in node.operands]
    return lambda ev: functools.reduce(pc.or_kleene, [o(ev) for o in operands])



#: Node class -> (value handler, condition handler) in the jms dialect; StringTest is
#: RocketMQ's only (the checker keeps it out of jms selectors).
_HANDLERS: dict[type[n.Node], tuple[Handler, Handler]] = {
    n.StringLit: (_literal_value, _value_as_condition),
    n.ExactLit: (_literal_value, _value_as_condition),
    n.ApproxLit: (_literal_value, _value_as_condition),
    n.BoolLit: (_literal_value, _value_as_condition),
    n.NullLit: (_literal_value, _value_as_condition),
    n.Ident: (_ident_value, _value_as_condition),
    n.Negate: (_negate_value, _value_as_condition),
    n.Arith: (_arith_value, _value_as_condition),
    n.Compare: (_condition_as_value, _compare_cond),
    n.Between: (_condition_as_value, _between_cond),
    n.In: (_condition_as_value, _in_cond),
    n.Like: (_condition_as_value, _like_cond),
    n.IsNull: (_condition_as_value, _is_null_cond),
    n.Not: (_condition_as_value, _not_cond),
    n.And: (_condition_as_value, _and_cond),
    n.Or: (_condition_as_value, _or_cond),
}


# -- the rocketmq dialect ---------------------------------------------------------------------
# RocketMQ carries properties as strings and converts a string to the type of the literal it
# meets (semantics/rocketmq.py). A failed conversion throws in the broker and aborts the
# evaluation of that message, unless AND / OR had already decided (left to right). So every
# rocketmq condition and value carries, beside its result, an `error` datum: TRUE in the
# rows where evaluating it threw (None: it never throws). The plan's answer is UNKNOWN in
# those rows, as the per-message backend's `evaluate` gives.

RCond: TypeAlias = tuple[Datum, Datum | None]
RValue: TypeAlias = tuple[Parts, Datum | None]
RCondFn: TypeAlias = Callable[[_Eval], RCond]
RValueFn: TypeAlias = Callable[[_Eval], RValue]

_INT32 = 2**31 - 1
_NAN_BITS = 0x7FF8000000000000
_MAGNITUDE = 0x7FFFFFFFFFFFFFFF
# Integer.valueOf / Long.valueOf: a sign and decimal digits of any script. The fast path
# takes ASCII digits with at most 18 significant ones (always within a long) to the cast
# kernel; the rest go through semantics/rocketmq.py once per distinct value.
_JAVA_INTEGER = r"\A[+-]?\p{Nd}+\z"
_ASCII_INTEGER = r"\A[+-]?0*[0-9]{1,18}\z"
# Double.valueOf (FloatingDecimal's grammar, after trimming characters <= U+0020). Plain
# ASCII decimals go to the cast kernel (correctly rounded); NaN, Infinity, hexadecimal,
# suffixed or padded ones through semantics/rocketmq.py.
_JAVA_DOUBLE = (
    r"\A[\x00-\x20]*[+-]?(?:NaN|Infinity"
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?"
    r"|0[xX](?:[0-9a-fA-F]+\.?|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[fFdD]?)"
    r"[\x00-\x20]*\z"
)
_ASCII_DOUBLE = r"\A[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\z"


def _or_errors(*errors: Datum | None) -> Datum | None:
    found = [e for e in errors if e is not None]
    return functools.reduce(pc.or_, found) if found else None


def _truth(datum: Datum, value: bool) -> Datum:
    """TRUE where `datum` is `value`, FALSE where it is the other value or null."""
    return pc.fill_null(pc.equal(datum, pa.scalar(value, pa.bool_())), False)


def _per_distinct(
    datum: Datum, convert: Callable[[str], object], out: pa.DataType
) -> tuple[Datum, Datum]:
    """(values, errors) of `convert` applied once per distinct string; `Undelivered`
    marks an error. For the rare strings the kernels cannot convert."""
    if isinstance(datum, pa.Scalar):
        text = datum.as_py()
        try:
            value = None if text is None else convert(text)
        except rq.Undelivered:
            return pa.scalar(None, out), _TRUE
        return pa.scalar(value, out), _FALSE
    distinct = pc.unique(datum)
    values: list[object] = []
    errors: list[bool] = []
    for text in distinct.to_pylist():
        try:
            values.append(None if text is None else convert(text))
            errors.append(False)
        except rq.Undelivered:
            values.append(None)
            errors.append(True)
    index = pc.index_in(datum, value_set=distinct)
    return pc.take(pa.array(values, out), index), pc.take(pa.array(errors, pa.bool_()), index)


def _convert(
    s: Datum, out: pa.DataType, java: str, ascii_form: str, slow: Callable[[str], object]
) -> tuple[Datum, Datum]:
    """(values, errors) of a string datum converted by a Java parser: `ascii_form`
    strings by the cast kernel, other `java` ones by `slow`, the rest are errors."""
    if isinstance(s, pa.Scalar):
        return _per_distinct(s, slow, out)
    # Most numeric properties are plain digits: then one cast does it all.
    digits = pc.and_(pc.fill_null(pc.ascii_is_decimal(s), False),
                     pc.less_equal(pc.binary_length(s), 18))
    if not pc.any(pc.and_(pc.is_valid(s), pc.invert(digits))).as_py():
        return pc.cast(s, out), _FALSE
    fast = pc.fill_null(pc.match_substring_regex(s, ascii_form), False)
    valid = pc.fill_null(pc.match_substring_regex(s, java), False)
    rare = pc.and_(valid, pc.invert(fast))
    unsigned = pc.replace_substring_regex(s, r"\A\+", "")
    values = pc.cast(pc.if_else(fast, unsigned, pa.scalar(None, s.type)), out)
    errors = pc.and_(pc.is_valid(s), pc.invert(valid))
    if not pc.any(rare).as_py():
        return values, errors
    rare_values, rare_errors = _per_distinct(
        pc.if_else(rare, s, pa.scalar(None, s.type)), slow, out
    )
    return pc.coalesce(values, rare_values), pc.or_(errors, rare_errors)


def _to_long(s: Datum, bound: int) -> tuple[Datum, Datum]:
    """Integer.valueOf (bound 2**31-1) or Long.valueOf of each string."""
    values, errors = _convert(
        s, pa.int64(), _JAVA_INTEGER, _ASCII_INTEGER,
        lambda text: rq._parse_integer(text, bound),
    )
    limits = pa.scalar(-bound - 1, pa.int64()), pa.scalar(bound, pa.int64())
    out_of_range = pc.fill_null(
        pc.or_(pc.less(values, limits[0]), pc.greater(values, limits[1])), False
    )
    errors = pc.or_(errors, out_of_range)
    return pc.if_else(out_of_range, _NULL_LONG, values), errors


def _to_double_rmq(s: Datum) -> tuple[Datum, Datum]:
    return _convert(s, pa.float64(), _JAVA_DOUBLE, _ASCII_DOUBLE, rq.parse_double)


def _to_boolean(s: Datum) -> Datum:
    # Boolean.valueOf: "true" in any case; no other character lower-cases to t, r, u, e.
    return pc.equal(pc.ascii_lower(s), pa.scalar("true", pa.string()))


def _double_order_key(datum: Datum) -> Datum:
    """An int64 key ordering doubles as Double.compareTo does: -0.0 < 0.0, NaN above
    everything and equal to itself."""
    if isinstance(datum, pa.Scalar):
        value = datum.as_py()
        if value is None:
            return _NULL_LONG
        bits = _NAN_BITS if value != value else v.double_bits(value)
        return pa.scalar(bits ^ _MAGNITUDE if bits < 0 else bits, pa.int64())
    canonical = pc.if_else(pc.is_nan(datum), pa.scalar(math.nan, pa.float64()), datum)
    if isinstance(canonical, pa.ChunkedArray):
        bits = pa.chunked_array(
            [c.view(pa.int64()) for c in canonical.chunks], pa.int64()
        )
    else:
        bits = canonical.view(pa.int64())
    flipped = pc.bit_wise_xor(bits, pa.scalar(_MAGNITUDE, pa.int64()))
    return pc.if_else(pc.less(bits, pa.scalar(0, pa.int64())), flipped, bits)


def _long_bound(literal: Datum) -> int:
    # A literal that fits in 32 bits is an Integer (-2**31 is a negated Long 2**31).
    value = literal.as_py() if isinstance(literal, pa.Scalar) else None
    return _INT32 if value is not None and -_INT32 <= value <= _INT32 else _LONG_MAX


def _rmq_pair(op: str, ka: str, a: Datum, kb: str, b: Datum) -> RCond | None:
    """`a op b` for one pair of parts under RocketMQ's coercion; None: unlike types."""
    kernel = _KERNELS[op]
    # A NULL on either side decides before any conversion: no throw there.
    both = pc.and_(pc.is_valid(a), pc.is_valid(b))
    errors: Datum | None = None
    if ka == STRING and kb == STRING:
        if op in ("=", "<>"):
            return kernel(*_same_strings(a, b)), None
        # Two strings order as numbers, or the broker throws.
        (a, ea), (b, eb) = _to_double_rmq(a), _to_double_rmq(b)
        ka = kb = DOUBLE
        errors = pc.or_(ea, eb)
    elif ka == STRING and kb in (LONG, DOUBLE, BOOLEAN):
        if kb == LONG:
            a, errors = _to_long(a, _long_bound(b))
        elif kb == DOUBLE:
            a, errors = _to_double_rmq(a)
        else:
            a = _to_boolean(a)
        ka = kb
    elif kb == STRING and ka in (LONG, DOUBLE):
        b, errors = _to_long(b, _long_bound(a)) if ka == LONG else _to_double_rmq(b)
        kb = ka
    elif ka == BOOLEAN and kb == STRING:
        # The broker casts the Boolean to a String here: ClassCastException.
        return _NULL_BOOL, both
    if errors is not None:
        errors = pc.and_(both, errors)
    if ka in _NUMERIC and kb in _NUMERIC:
        if ka == kb == LONG:
            return kernel(a, b), errors
        # Doubles compare by Double.compareTo (the values are equal only bit for bit).
        return kernel(_double_order_key(_to_double(a)), _double_order_key(_to_double(b))), errors
    if ka == kb == BOOLEAN:
        return kernel(a, b), errors
    return None


def rmq_compare(op: str, a: Parts, b: Parts) -> RCond:
    """RocketMQ's ComparisonExpression: coercion, asymmetric NULL for `=` / `<>`
    (NULL on the left UNKNOWN, on the right FALSE, both NULL equal), NULL in an
    ordering UNKNOWN, unlike types FALSE for `=` (TRUE for `<>`) and a throw for an
    ordering."""
    results: list[Datum] = []
    errors: list[Datum | None] = []
    unlike = False
    for ka, da in a.items():
        for kb, db in b.items():
            pair = _rmq_pair(op, ka, da, kb, db)
            if pair is None:
                unlike = True
            else:
                results.append(pair[0])
                errors.append(pair[1])
    left, right = present(a), present(b)
    if op in ("=", "<>"):
        equal = op == "="
        # Rows no pair decided: unlike types (eq FALSE) or a NULL operand.
        results.append(
            pc.if_else(
                left,
                pa.scalar(not equal, pa.bool_()),
                pc.if_else(right, _NULL_BOOL, pa.scalar(equal, pa.bool_())),
            )
        )
    elif unlike:
        # An ordering of unlike types throws.
        undecided = pc.is_null(_first(results)) if results else _TRUE
        errors.append(pc.and_(pc.and_(left, right), undecided))
    if not results:
        results.append(_NULL_BOOL)
    return _first(results), _or_errors(*errors)


def _rmq_prop(parts: Parts) -> Parts:
    """A typed column as RocketMQ sees it: its Java text (a value without one stays)."""
    out: list[Parts] = []
    for kind, datum in parts.items():
        if kind == OTHER:
            out.append({OTHER: datum})
        else:
            text = java_text(kind, datum)
            out.append({STRING: text})
    return _merge(out)


@dataclass
class _RocketCompiler:
    schema: pa.Schema
    layout: Layout
    dialect: Grammar

    def value(self, node: n.Expr) -> RValueFn:
        return _handlers(_ROCKETMQ_HANDLERS, node)[0](self, node)

    def cond(self, node: n.Expr) -> RCondFn:
        return _handlers(_ROCKETMQ_HANDLERS, node)[1](self, node)


def _rocketmq_plan(cond: RCondFn) -> CondFn:
    def run(ev: _Eval) -> Datum:
        result, error = cond(ev)
        if error is None:
            return result
        return pc.if_else(error, _NULL_BOOL, result)

    return run


def _r_literal(c: _RocketCompiler, node: n.Expr) -> RValueFn:
    parts = _literal_value(c, node)(None)  # type: ignore[arg-type]
    return lambda ev: (parts, None)


def _r_ident(c: _RocketCompiler, node: n.Ident) -> RValueFn:
    reader = _Compiler(c.schema, c.layout, c.dialect).read(node.name)
    return lambda ev: (_rmq_prop(reader(ev)), None)


def _r_negate(c: _RocketCompiler, node: n.Negate) -> RValueFn:
    operand = c.value(node.operand)

    def run(ev: _Eval) -> RValue:
        parts, error = operand(ev)
        return negate(parts), error

    return run


def _r_value_cond(c: _RocketCompiler, node: n.Expr) -> RCondFn:
    # A bare value as a condition: a boolean is itself, NULL UNKNOWN, else FALSE (every
    # property is a string, so a bare property is never TRUE).
    value = c.value(node)

    def run(ev: _Eval) -> RCond:
        parts, error = value(ev)
        return as_condition(parts), error

    return run


def _r_cond_value(c: _RocketCompiler, node: n.Expr) -> RValueFn:
    cond = c.cond(node)

    def run(ev: _Eval) -> RValue:
        result, error = cond(ev)
        return {BOOLEAN: result}, error

    return run


def _r_compare(c: _RocketCompiler, node: n.Compare) -> RCondFn:
    left, right, op = c.value(node.left), c.value(node.right), node.op

    def run(ev: _Eval) -> RCond:
        (a, ea), (b, eb) = left(ev), right(ev)
        result, error = rmq_compare(op, a, b)
        return result, _or_errors(ea, eb, error)

    return run


def _r_between(c: _RocketCompiler, node: n.Between) -> RCondFn:
    e = node.operand
    if node.negated:
        return c.cond(n.Or((n.Compare("<", e, node.low), n.Compare(">", e, node.high))))
    return c.cond(n.And((n.Compare(">=", e, node.low), n.Compare("<=", e, node.high))))


def _r_in(c: _RocketCompiler, node: n.In) -> RCondFn:
    # InExpression: NULL and non-strings are UNKNOWN for IN and NOT IN alike.
    operand, test = c.value(node.operand), _in_test(node.items)

    def run(ev: _Eval) -> RCond:
        parts, error = operand(ev)
        string = parts.get(STRING)
        if string is None:
            return _NULL_BOOL, error
        hit = test(string)
        return (pc.invert(hit) if node.negated else hit), error

    return run


_STRING_KERNELS: dict[str, Callable[[Datum, str], Datum]] = {
    "CONTAINS": lambda s, text: pc.match_substring(s, text),
    "STARTSWITH": lambda s, text: pc.starts_with(s, text),
    "ENDSWITH": lambda s, text: pc.ends_with(s, text),
}


def _r_string_test(c: _RocketCompiler, node: n.StringTest) -> RCondFn:
    # FALSE for NULL, non-strings and an empty search string, in the NOT forms too.
    operand, kernel, text, negated = c.value(node.operand), _STRING_KERNELS[node.op], \
        node.value, node.negated

    def run(ev: _Eval) -> RCond:
        parts, error = operand(ev)
        string = parts.get(STRING)
        if string is None or not text:
            return _FALSE, error
        hit = kernel(string, text)
        if negated:
            hit = pc.invert(hit)
        return pc.fill_null(hit, False), error

    return run


def _r_is_null(c: _RocketCompiler, node: n.IsNull) -> RCondFn:
    operand = c.value(node.operand)

    def run(ev: _Eval) -> RCond:
        parts, error = operand(ev)
        found = present(parts)
        return (found if node.negated else pc.invert(found)), error

    return run


def _r_not(c: _RocketCompiler, node: n.Not) -> RCondFn:
    operand = c.cond(node.operand)

    def run(ev: _Eval) -> RCond:
        result, error = operand(ev)
        return pc.invert(result), error

    return run


def _r_logic(c: _RocketCompiler, node: n.And | n.Or) -> RCondFn:
    # Left to right, as the broker: an operand is evaluated (and may throw) only while
    # no earlier one has decided, i.e. none was FALSE (AND) or TRUE (OR).
    operands = [c.cond(o) for o in node.operands]
    is_and = isinstance(node, n.And)
    combine = pc.and_kleene if is_and else pc.or_kleene
    deciding = not is_and

    def run(ev: _Eval) -> RCond:
        result, error = operands[0](ev)
        for operand in operands[1:]:
            value, more = operand(ev)
            if more is not None:
                undecided = pc.invert(_truth(result, deciding))
                error = _or_errors(error, pc.and_(undecided, more))
            result = combine(result, value)
        return result, error

    return run


_ROCKETMQ_HANDLERS: dict[type[n.Node], tuple[Handler, Handler]] = {
    n.StringLit: (_r_literal, _r_value_cond),
    n.ExactLit: (_r_literal, _r_value_cond),
    n.ApproxLit: (_r_literal, _r_value_cond),
    n.BoolLit: (_r_literal, _r_value_cond),
    n.NullLit: (_r_literal, _r_value_cond),
    n.Ident: (_r_ident, _r_value_cond),
    n.Negate: (_r_negate, _r_value_cond),
    n.Compare: (_r_cond_value, _r_compare),
    n.Between: (_r_cond_value, _r_between),
    n.In: (_r_cond_value, _r_in),
    n.StringTest: (_r_cond_value, _r_string_test),
    n.IsNull: (_r_cond_value, _r_is_null),
    n.Not: (_r_cond_value, _r_not),
    n.And: (_r_cond_value, _r_logic),
    n.Or: (_r_cond_value, _r_logic),
}


Plan: TypeAlias = Callable[[Any], pa.BooleanArray]


def _finish(result: Datum, length: int) -> pa.BooleanArray:
    if isinstance(result, pa.Scalar):
        value = result.as_py()
        if value is None:
            return pa.nulls(length, pa.bool_())
        return pa.repeat(pa.scalar(bool(value), pa.bool_()), length)
    if isinstance(result, pa.ChunkedArray):
        result = result.combine_chunks()
    if result.type != pa.bool_():  # pragma: no cover - conditions are bool by construction
        result = result.cast(pa.bool_())
    return result


def _texts(node: n.Node) -> tuple[str, ...]:
    if isinstance(node, n.StringLit):
        return (node.value,)
    if isinstance(node, n.In):
        return node.items
    if isinstance(node, n.Like):
        return (node.pattern, node.escape or "")
    if isinstance(node, n.StringTest):
        return (node.value,)
    return ()


def _check_texts(tree: n.Expr) -> None:
    """Unsupported when a literal holds a lone surrogate: it is no UTF-8 text, so no
    Arrow string can hold it (a Python message can)."""
    stack: list[n.Node] = [tree]
    while stack:
        node = stack.pop()
        stack.extend(n.children(node))
        for text in _texts(node):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                raise Unsupported("a string literal holds a lone surrogate") from None


def compile_arrow(
    tree: n.Expr | None, dialect: Grammar, schema: pa.Schema, layout: Layout = DEFAULT_LAYOUT
) -> Plan:
    """A function from a Table or RecordBatch of `schema` to a BooleanArray, one
    entry per row: TRUE, FALSE or null (UNKNOWN). None is the empty selector (TRUE).

    Raises LayoutError when the table's properties column is not a map, and
    Unsupported for a selector only the per-message backend can evaluate.
    """
    if layout.properties_column is not None and layout.properties_column in schema.names:
        index = schema.names.index(layout.properties_column)
        check_properties_type(layout.properties_column, schema.field(index).type)
    if tree is None:
        return lambda data: pa.repeat(_TRUE, data.num_rows)
    _check_texts(tree)
    if dialect.name == "jms":
        cond = _Compiler(schema, layout, dialect).cond(tree)
    elif dialect.name == "rocketmq":
        cond = _rocketmq_plan(_RocketCompiler(schema, layout, dialect).cond(tree))
    else:
        raise Unsupported(f"the {dialect.name} dialect is evaluated row by row")

    def plan(data: Any) -> pa.BooleanArray:
        return _finish(cond(_Eval(data)), data.num_rows)

    return plan


# -- rows as the per-message backend sees them ---------------------------------------------------


def python_values(datum: Datum) -> list[object]:
    """The values of a column as Python objects with the selector types the plan gives
    them: str, int, float, bool, None, or Opaque for a value of no selector type."""
    parts = decomposer(datum.type)(datum)
    columns = {k: d.to_pylist() for k, d in parts.items()}
    raw = datum.to_pylist() if OTHER in parts else None
    out: list[object] = []
    for row in range(len(datum)):
        value: object = None
        for kind, column in columns.items():
            if column[row] is not None:
                value = Opaque(raw[row]) if kind == OTHER else column[row]  # type: ignore[index]
                break
        out.append(value)
    return out


def _map_rows(datum: Datum, wanted: frozenset[str] | None) -> list[dict[str, object]]:
    chunks = datum.chunks if isinstance(datum, pa.ChunkedArray) else [datum]
    rows: list[dict[str, object]] = []
    for chunk in chunks:
        keys = chunk.keys.to_pylist()
        items = python_values(chunk.items)
        offsets = chunk.offsets.to_pylist()
        valid = chunk.is_valid().to_pylist()
        for row in range(len(chunk)):
            entries: dict[str, object] = {}
            if valid[row]:
                for at in range(offsets[row], offsets[row + 1]):
                    key = keys[at]
                    if wanted is None or key in wanted:
                        entries[key] = items[at]
            rows.append(entries)
    return rows


def message_rows(
    data: Any, layout: Layout = DEFAULT_LAYOUT, names: Iterable[str] | None = None
) -> list[tuple[dict[str, object], object, tuple[str, ...]]]:
    """(properties, tag, keys) of each row, by the layout's rules (see Layout)."""
    schema = data.schema
    wanted = None if names is None else frozenset(names)
    rows: list[dict[str, object]] = [{} for _ in range(data.num_rows)]
    column = layout.properties_column
    if column is not None and column in schema.names:
        index = schema.names.index(column)
        check_properties_type(column, schema.field(index).type)
        rows = _map_rows(data.column(index), wanted)
    if layout.typed:
        reserved, seen = layout.reserved(), set()
        for index, name in enumerate(schema.names):
            if name in reserved or name in seen or (wanted is not None and name not in wanted):
                continue
            seen.add(name)
            for row, value in zip(rows, python_values(data.column(index)), strict=True):
                row[name] = value
    tags: list[object] = [None] * data.num_rows
    if layout.tags_column is not None and layout.tags_column in schema.names:
        tags = python_values(data.column(schema.names.index(layout.tags_column)))
    keys: list[tuple[str, ...]] = [()] * data.num_rows
    if layout.keys_column is not None and layout.keys_column in schema.names:
        keys_datum = data.column(schema.names.index(layout.keys_column))
        joiner = keys_joiner(layout.keys_column, keys_datum.type)
        texts = python_values(keys_datum if joiner is None else joiner(keys_datum))
        keys = [() if text is None else (text,) for text in texts]  # type: ignore[misc]
    return list(zip(rows, tags, keys, strict=True))

