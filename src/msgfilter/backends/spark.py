"""Checked AST -> a native pyspark `Column`, so that Catalyst evaluates a filter over a
DataFrame without running Python per row.

Types are static. Every identifier resolves once, against the DataFrame's schema and
the `Layout` (the Arrow backend's record, same rules), to one column or map lookup, and
that column's Spark type gives the value its selector type for the whole frame:

    byte short int long -> L (Java long)     float double -> D (Java double)
    string char varchar -> S                 boolean      -> B
    void (NullType)     -> N (always NULL)   anything else -> O (no selector type)

Each node then lowers to a Spark expression for the rule of its operand types (J21-J39),
decided while lowering rather than per row. The result is a boolean Column that is
NULL where the selector is UNKNOWN: Spark's AND, OR and NOT are SQL's three-valued
logic, which is the spec's (J39), so `df.where(column)` keeps exactly the messages that
`Filter.matches` accepts.

Where Spark's own operators differ from the dialect the lowering corrects them:

* NaN: Spark orders NaN above every number and makes NaN = NaN TRUE; J26 wants every
  comparison with NaN FALSE except `<>`. A test for NaN guards only the operand whose
  NaN Spark would get wrong for that operator.
* Long arithmetic wraps at 64 bits (J23). With ANSI mode on, Spark raises on overflow;
  `try_add` and friends give NULL instead, and only then the result is recomputed
  exactly as a decimal and wrapped, so the common case costs one native add.
* Division: long / long truncates and a zero divisor is NULL (J30); MIN / -1 is MIN.
  Double division by a zero is IEEE (±Infinity or NaN), where Spark gives NULL or
  raises. Divisors are tested before dividing, inside CASE, which Spark evaluates
  lazily, so ANSI mode never sees a zero.
* Strings order by UTF-16 code units (J27); Spark orders by code points, so ordering
  comparisons of strings compare their UTF-16BE encodings as binary.
* LIKE patterns are rewritten into Spark's LIKE with backslash escapes (Spark's `_`
  is one code point and both wildcards match line breaks, as J36 wants).

Constant subexpressions are computed here, with the per-message value rules, and enter
Spark as literals: Spark's constant folding never meets a division by zero.

What Spark cannot express runs in Python through an Arrow UDF, transparently:

* `'text' + d` with `d` a double needs Java's `Double.toString` (J31): that one value
  goes through a small Arrow UDF; the rest of the selector stays native.
* Selector dialects other than `jms`, values whose selector type changes from row to
  row (a `TAGS` read from string map values or from a tags column of another type),
  and text Spark strings cannot hold (lone surrogates) evaluate the whole filter with
  `Filter.evaluate` per row in an Arrow UDF (`udf_column`).

No byte of user text reaches Spark SQL text: identifiers become quoted column
references, literals become `F.lit` values.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import reduce
from typing import Any

import pyarrow as pa
from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ..filter import Filter
from ..message import KEYS_PROPERTY, TAGS_PROPERTY
from ..semantics import values as v
from ..semantics.like import compile_like, parse_like
from ..syntax import nodes as n
from .arrow import DEFAULT_LAYOUT, Layout, LayoutError

__all__ = [
    "DEFAULT_LAYOUT",
    "Layout",
    "LayoutError",
    "Lowered",
    "NotNativeError",
    "column_ref",
    "lower",
    "udf_column",
]

# Selector types of values (see the module docstring).
LONG, DOUBLE, STRING, BOOLEAN, NULL, OTHER = "long", "double", "string", "boolean", "null", "other"
_NUMERIC = frozenset({LONG, DOUBLE})
_LONG_MIN = -(2**63)
# Wide enough for the exact product of two longs (|x| <= 2**126 < 10**38).
_EXACT = T.DecimalType(38, 0)
_KIND_NAMES = {
    LONG: "a Java long", DOUBLE: "a Java double", STRING: "a string", BOOLEAN: "a boolean",
    NULL: "always NULL", OTHER: "no selector type",
}


class NotNativeError(ValueError):
    """The filter (or a part of it) has no native Spark form; see `explain`."""


class _Fallback(Exception):
    """Raised while lowering: this filter must be evaluated by the per-message UDF."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_NOT_CONST: Any = object()


@dataclass(frozen=True, slots=True, eq=False)
class _V:
    """A lowered value: its Column, selector type and, when known here, its value."""

    col: Column
    kind: str
    const: Any = _NOT_CONST
    # The value can be NaN (a double column or double arithmetic): comparisons need a guard.
    may_nan: bool = False

    @property
    def is_const(self) -> bool:
        return self.const is not _NOT_CONST

    @property
    def never_null(self) -> bool:
        return self.is_const and self.const is not None


def column_ref(name: str) -> Column:
    """A reference to the top-level column `name`, whatever characters it holds."""
    return F.col("`" + name.replace("`", "``") + "`")


def _kind_of(value: object) -> str:
    cls = type(value)
    if value is None:
        return NULL
    if cls is bool:
        return BOOLEAN
    if cls is int:
        return LONG
    if cls is float:
        return DOUBLE
    if cls is str:
        return STRING
    return OTHER  # pragma: no cover - constants are always of a selector type


_SPARK_TYPE: dict[str, T.DataType] = {
    LONG: T.LongType(), DOUBLE: T.DoubleType(), STRING: T.StringType(),
    BOOLEAN: T.BooleanType(), NULL: T.NullType(),
}


def _const(value: object) -> _V:
    """A value known while lowering, as a typed Spark literal."""
    kind = _kind_of(value)
    if value is None:
        return _V(F.lit(None), NULL, None)
    if kind == LONG:
        return _V(F.lit(value).cast(T.LongType()), LONG, value)
    if kind == DOUBLE:
        return _V(F.lit(value), DOUBLE, value, may_nan=math.isnan(value))  # type: ignore[arg-type]
    return _V(F.lit(value), kind, value)


def _null(kind: str) -> _V:
    """NULL of a known type: its type still decides nothing, but Spark wants one."""
    return _V(F.lit(None).cast(_SPARK_TYPE.get(kind, T.NullType())), NULL, None)


def _null_bool() -> Column:
    return F.lit(None).cast(T.BooleanType())


def _bool(value: bool | None) -> _V:
    if value is None:
        return _V(_null_bool(), BOOLEAN, None)
    return _V(F.lit(value), BOOLEAN, value)


def _present(*values: _V) -> Column | None:
    """TRUE where none of `values` is NULL; None when that is known already."""
    tests = [x.col.isNotNull() for x in values if not x.never_null]
    return reduce(operator.and_, tests) if tests else None


def _unless_null(result: Column, *values: _V) -> Column:
    """`result` where every value is present, NULL (UNKNOWN) elsewhere."""
    present = _present(*values)
    return result if present is None else F.when(present, result)


def _as_condition(x: _V) -> Column:
    """A value where a condition is required (J39): booleans as they are, NULL as
    UNKNOWN, anything else FALSE."""
    if x.is_const:
        return _bool(v.as_condition(x.const)).col
    if x.kind == BOOLEAN:
        return x.col
    if x.kind == NULL:
        return _null_bool()
    return F.when(x.col.isNotNull(), F.lit(False))


# -- column types ------------------------------------------------------------------------


def _typed(col: Column, dtype: T.DataType) -> _V:
    """A column's values with the selector type its Spark type gives them."""
    if isinstance(dtype, T.LongType):
        return _V(col, LONG)
    if isinstance(dtype, T.ByteType | T.ShortType | T.IntegerType):
        return _V(col.cast(T.LongType()), LONG)
    if isinstance(dtype, T.DoubleType):
        return _V(col, DOUBLE, may_nan=True)
    if isinstance(dtype, T.FloatType):
        # Exact widening, as Java widens a float (the Arrow backend does the same).
        return _V(col.cast(T.DoubleType()), DOUBLE, may_nan=True)
    if isinstance(dtype, T.StringType | T.CharType | T.VarcharType):
        collation = getattr(dtype, "collation", "UTF8_BINARY")
        if collation != "UTF8_BINARY":
            # A case-insensitive collation would change `=`; selectors compare exactly.
            col = F.collate(col, "UTF8_BINARY")
        return _V(col, STRING)
    if isinstance(dtype, T.BooleanType):
        return _V(col, BOOLEAN)
    if isinstance(dtype, T.NullType):
        return _null(NULL)
    return _V(col, OTHER)


def _type_name(dtype: T.DataType) -> str:
    return str(dtype.simpleString())


def check_properties_type(column: str, dtype: T.DataType) -> None:
    """LayoutError unless `dtype` is a map keyed by strings."""
    if not isinstance(dtype, T.MapType) or not isinstance(dtype.keyType, T.StringType):
        raise LayoutError(
            f"column {column!r} is {_type_name(dtype)}, not a map<string, ...> of properties; "
            "name the map column with Layout(properties_column=...) or pass None"
        )


def _keys_text(column: str, col: Column, dtype: T.DataType) -> _V:
    """KEYS from a keys column: a string as it is, a list of strings joined by spaces
    (NULL when empty or holding a NULL), as the Arrow backend reads it."""
    if isinstance(dtype, T.StringType):
        return _typed(col, dtype)
    if isinstance(dtype, T.ArrayType) and isinstance(dtype.elementType, T.StringType):
        bad = (F.size(col) == 0) | F.exists(col, lambda x: x.isNull())
        return _V(F.when(~bad, F.array_join(col, " ")), STRING)
    raise LayoutError(
        f"keys column {column!r} is {_type_name(dtype)}, not a string or a list of strings"
    )


def _case_sensitive() -> bool:
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    if session is None:
        return False
    return str(session.conf.get("spark.sql.caseSensitive", "false")).lower() == "true"


class _Schema:
    """Identifier resolution against one schema and layout (the Layout rules)."""

    def __init__(self, schema: T.StructType, layout: Layout) -> None:
        self.layout = layout
        self.fields: dict[str, T.DataType] = {}
        for f in schema.fields:
            # With several columns of one name, the first (as the Arrow backend).
            self.fields.setdefault(f.name, f.dataType)
        self.reserved = layout.reserved()
        self.folded: dict[str, int] = {}
        for f in schema.fields:
            self.folded[f.name.lower()] = self.folded.get(f.name.lower(), 0) + 1
        props = layout.properties_column
        self.props: tuple[str, T.MapType] | None = None
        if props is not None and props in self.fields:
            dtype = self.fields[props]
            check_properties_type(props, dtype)
            self.props = (props, dtype)  # type: ignore[assignment]
        self.bindings: dict[str, str] = {}

    def typed_column(self, name: str) -> T.DataType | None:
        if self.layout.typed and name not in self.reserved:
            return self.fields.get(name)
        return None

    def typed_names(self) -> list[str]:
        """Top-level columns read as properties by their own name."""
        if not self.layout.typed:
            return []
        return [name for name in self.fields if name not in self.reserved]

    def resolve(self, name: str) -> _V:
        dtype = self.typed_column(name)
        if dtype is not None:
            if self.folded[name.lower()] > 1 and not _case_sensitive():
                raise LayoutError(
                    f"column {name!r} differs from another column only in letter case, and "
                    "Spark resolves names without case: set spark.sql.caseSensitive=true"
                )
            self.bindings[name] = f"column {name!r} ({_type_name(dtype)})"
            return _typed(column_ref(name), dtype)
        from_map: _V | None = None
        if self.props is not None:
            column, mtype = self.props
            from_map = _typed(
                F.try_element_at(column_ref(column), F.lit(name)), mtype.valueType
            )
        fallback_column = {
            TAGS_PROPERTY: self.layout.tags_column, KEYS_PROPERTY: self.layout.keys_column
        }.get(name)
        if fallback_column is None or fallback_column not in self.fields:
            if from_map is None:
                self.bindings[name] = "nothing: always NULL"
                return _null(NULL)
            self.bindings[name] = self._map_text(name)
            return from_map
        ftype = self.fields[fallback_column]
        fcol = column_ref(fallback_column)
        fallback = (
            _keys_text(fallback_column, fcol, ftype) if name == KEYS_PROPERTY
            else _typed(fcol, ftype)
        )
        where = f"column {fallback_column!r} ({_type_name(ftype)})"
        if from_map is None:
            self.bindings[name] = where
            return fallback
        self.bindings[name] = f"{self._map_text(name)}, else {where}"
        if from_map.kind != fallback.kind and NULL not in (from_map.kind, fallback.kind):
            raise _Fallback(
                f"{name} is {_KIND_NAMES[from_map.kind]} in some rows and "
                f"{_KIND_NAMES[fallback.kind]} in others"
            )
        assert self.props is not None
        has_key = F.map_contains_key(column_ref(self.props[0]), F.lit(name))
        # The map wins where it has the key at all, even with a NULL value, as
        # Message.view lets a property shadow the tag.
        kind = fallback.kind if from_map.kind == NULL else from_map.kind
        return _V(
            F.when(has_key, from_map.col).otherwise(fallback.col), kind,
            may_nan=from_map.may_nan or fallback.may_nan,
        )

    def _map_text(self, name: str) -> str:
        assert self.props is not None
        column, mtype = self.props
        return f"{column}[{name!r}] ({_type_name(mtype.valueType)})"


# -- arithmetic --------------------------------------------------------------------------


def _as_double(x: _V) -> _V:
    if x.kind == DOUBLE:
        return x
    if x.is_const:
        return _const(v.to_double(x.const))
    return _V(x.col.cast(T.DoubleType()), DOUBLE)


def _negate(x: _V) -> _V:
    if x.is_const:
        return _const(v.negate(x.const))
    if x.kind == LONG:
        # -MIN overflows (and raises under ANSI); Java wraps it to MIN.
        return _V(F.when(x.col == _LONG_MIN, F.lit(_LONG_MIN)).otherwise(-x.col), LONG)
    if x.kind == DOUBLE:
        return _V(-x.col, DOUBLE, may_nan=x.may_nan)
    return _null(NULL)


_TRY = {"+": F.try_add, "-": F.try_subtract, "*": F.try_multiply}
_EXACT_OP = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_DOUBLE_OP: dict[str, Callable[[Column, Column], Column]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul,
}


def _long_arith(op: str, a: _V, b: _V) -> _V:
    if op == "/":
        return _long_divide(a, b)
    quick = _TRY[op](a.col, b.col)
    exact = _EXACT_OP[op](a.col.cast(_EXACT), b.col.cast(_EXACT))
    two63, two64 = F.lit(Decimal(2**63)), F.lit(Decimal(2**64))
    wrapped = (F.pmod(exact + two63, two64) - two63).cast(T.LongType())
    # try_* is NULL on overflow: only then take the exact, wrapped result.
    overflow = quick.isNull()
    present = _present(a, b)
    if present is not None:
        overflow = overflow & present
    return _V(F.when(overflow, wrapped).otherwise(quick), LONG)


def _long_divide(a: _V, b: _V) -> _V:
    def div(x: Column, y: Column) -> Column:
        # Spark's `div` truncates toward zero, as Java's long division.
        return F.call_function("div", x, y)

    if b.is_const:
        if b.const == 0:
            return _null(LONG)
        if b.const == -1:
            return _negate(a)
        return _V(div(a.col, b.col), LONG)
    return _V(
        F.when(b.col == 0, F.lit(None).cast(T.LongType()))
        .when(b.col == -1, _negate(a).col)
        .otherwise(div(a.col, b.col)),
        LONG,
    )


def _double_divide(a: _V, b: _V) -> _V:
    nan, inf = F.lit(math.nan), F.lit(math.inf)
    minus_inf = F.lit(-math.inf)

    def by_zero(negative_zero: Column | bool) -> Column:
        # IEEE: 0/0 and NaN/0 are NaN, otherwise an infinity signed by both signs.
        if isinstance(negative_zero, bool):
            pos, neg = (minus_inf, inf) if negative_zero else (inf, minus_inf)
        else:
            pos = F.when(negative_zero, minus_inf).otherwise(inf)
            neg = F.when(negative_zero, inf).otherwise(minus_inf)
        return (
            F.when(F.isnan(a.col) | (a.col == 0.0), nan)
            .when(a.col > 0.0, pos)
            .when(a.col < 0.0, neg)
        )

    if b.is_const:
        if b.const == 0.0:
            return _V(by_zero(math.copysign(1.0, b.const) < 0), DOUBLE, may_nan=True)
        return _V(a.col / b.col, DOUBLE, may_nan=True)
    # The sign of a zero divisor. Spark's arithmetic and atan2 normalise -0.0, but its
    # text keeps the sign (only zeros reach this test).
    negative_zero = b.col.cast(T.StringType()).startswith("-")
    return _V(
        F.when(b.col == 0.0, by_zero(negative_zero)).otherwise(a.col / b.col),
        DOUBLE, may_nan=True,
    )


# -- comparisons ---------------------------------------------------------------------------

_SPARK_CMP: dict[str, Callable[[Column, Column], Column]] = {
    "=": operator.eq, "<>": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def _nan_guard(op: str, x: _V, y: _V) -> Column | None:
    """Where Spark's NaN rules (NaN = NaN, NaN above every number) give the wrong
    answer for `x op y`: the rows needing J26's answer instead. None: nowhere."""

    def nan(z: _V) -> Column | None:
        if not z.may_nan:
            return None
        if z.is_const:
            return F.lit(True)
        return F.isnan(z.col)

    nx, ny = nan(x), nan(y)
    if op in ("=", "<>"):
        # Spark is right unless both are NaN.
        return None if nx is None or ny is None else nx & ny
    if op in (">", ">="):
        # NaN on the left is "greater" in Spark; NaN on the right is already FALSE.
        return nx
    return ny


def _compare_numbers(op: str, a: _V, b: _V) -> Column:
    if a.kind == LONG and b.kind == LONG:
        return _SPARK_CMP[op](a.col, b.col)
    x, y = _as_double(a), _as_double(b)
    result = _SPARK_CMP[op](x.col, y.col)
    guard = _nan_guard(op, x, y)
    if guard is None:
        return result
    if op in ("=", "<>"):
        answer = F.lit(op == "<>")  # both NaN, so both present
    else:
        # One side is NaN; the other may still be NULL (UNKNOWN).
        answer = _unless_null(F.lit(False), y if op in (">", ">=") else x)
    return F.when(guard, answer).otherwise(result)


def _utf16(col: Column) -> Column:
    # UTF-16BE bytes compare as unsigned bytes in code-unit order (Java's compareTo).
    return F.encode(col, "UTF-16BE")


def _compare(op: str, a: _V, b: _V) -> _V:
    if a.is_const and b.is_const:
        return _bool(v.compare(op, a.const, b.const))
    if NULL in (a.kind, b.kind):
        return _bool(None)
    if a.kind in _NUMERIC and b.kind in _NUMERIC:
        return _V(_compare_numbers(op, a, b), BOOLEAN)
    if a.kind == b.kind == STRING:
        if op in ("=", "<>"):
            return _V(_SPARK_CMP[op](a.col, b.col), BOOLEAN)
        return _V(_SPARK_CMP[op](_utf16(a.col), _utf16(b.col)), BOOLEAN)
    if a.kind == b.kind == BOOLEAN:
        return _V(_SPARK_CMP[op](a.col, b.col), BOOLEAN)
    # Unlike types, or a value of no selector type: FALSE unless a side is NULL (J24).
    return _V(_unless_null(F.lit(False), a, b), BOOLEAN)


def like_pattern(pattern: str, escape: str | None) -> str:
    """A selector LIKE pattern (J36) as a Spark LIKE pattern with backslash escapes."""
    special = ("\\", "%", "_")
    return "%".join(
        "".join("_" if ch is None else ("\\" + ch if ch in special else ch) for ch in segment)
        for segment in parse_like(pattern, escape).segments
    )


# -- the lowering ----------------------------------------------------------------------------


class _Lowering:
    def __init__(self, schema: _Schema, text: str) -> None:
        self.schema = schema
        self.text = text
        self.idents: dict[str, _V] = {}
        self.udf_parts: list[tuple[str, str]] = []

    def source(self, node: n.Node) -> str:
        start, end = node.span
        return self.text[start:end] if end > start else type(node).__name__

    def run(self, root: n.Expr) -> Column:
        # Post-order with an explicit stack: trees may nest 256 levels.
        done: dict[int, _V] = {}
        stack: list[tuple[n.Expr, bool]] = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if id(node) in done:
                continue
            kids = n.children(node)
            if kids and not expanded:
                stack.append((node, True))
                stack.extend((kid, False) for kid in reversed(kids))
                continue
            handler = _HANDLERS[type(node)]
            done[id(node)] = handler(self, node, [done[id(kid)] for kid in kids])
        return _as_condition(done[id(root)])

    # -- values --

    def literal(self, node: n.Expr, kids: list[_V]) -> _V:
        if isinstance(node, n.NullLit):
            return _null(NULL)
        return _const(node.value)  # type: ignore[union-attr]

    def ident(self, node: n.Ident, kids: list[_V]) -> _V:
        found = self.idents.get(node.name)
        if found is None:
            found = self.idents[node.name] = self.schema.resolve(node.name)
        return found

    def negate(self, node: n.Negate, kids: list[_V]) -> _V:
        return _negate(kids[0])

    def arith(self, node: n.Arith, kids: list[_V]) -> _V:
        a, b = kids
        op = node.op
        if a.is_const and b.is_const:
            return _const(v.ARITHMETIC[op](a.const, b.const))
        if op == "+" and a.kind == STRING:
            text = self.text_of(node.right, b)
            if text is None:
                return _null(STRING)
            if a.is_const and a.const == "":
                return text
            return _V(F.concat(a.col, text.col), STRING)
        if a.kind in _NUMERIC and b.kind in _NUMERIC:
            if a.kind == LONG and b.kind == LONG:
                return _long_arith(op, a, b)
            x, y = _as_double(a), _as_double(b)
            if op == "/":
                return _double_divide(x, y)
            return _V(_DOUBLE_OP[op](x.col, y.col), DOUBLE, may_nan=True)
        # J32: arithmetic on a string, boolean, NULL or other value is NULL.
        return _null(NULL)

    def text_of(self, node: n.Expr, x: _V) -> _V | None:
        """The right operand of a string `+` as Java writes it (J31); None: NULL."""
        if x.is_const:
            text = v.java_text(x.const)
            return None if text is None else _const(text)
        if x.kind == STRING:
            return x
        if x.kind in (LONG, BOOLEAN):
            # Spark writes longs in decimal and booleans as true/false, as Java does.
            return _V(x.col.cast(T.StringType()), STRING)
        if x.kind == DOUBLE:
            self.udf_parts.append(
                (self.source(node), "a double written as text (Java's Double.toString)")
            )
            return _V(_double_text_udf()(x.col), STRING)
        return None

    # -- conditions --

    def compare(self, node: n.Compare, kids: list[_V]) -> _V:
        return _compare(node.op, kids[0], kids[1])

    def between(self, node: n.Between, kids: list[_V]) -> _V:
        e, low, high = kids
        # J33: exactly two comparisons joined by AND (NOT BETWEEN: by OR).
        if node.negated:
            return self.logic(operator.or_, (_compare("<", e, low), _compare(">", e, high)))
        return self.logic(operator.and_, (_compare(">=", e, low), _compare("<=", e, high)))

    def in_(self, node: n.In, kids: list[_V]) -> _V:
        x = kids[0]
        if x.kind == NULL:
            return _bool(None)
        if x.kind != STRING:
            # J34: a non-string value is FALSE for IN and TRUE for NOT IN.
            return _V(_unless_null(F.lit(node.negated), x), BOOLEAN)
        hit = x.col.isin(*node.items)
        return _V(~hit if node.negated else hit, BOOLEAN)

    def like(self, node: n.Like, kids: list[_V]) -> _V:
        x = kids[0]
        if x.is_const:
            if x.kind == STRING:
                matched = compile_like(node.pattern, node.escape)(x.const)
                return _bool(matched != node.negated)
            return _bool(None if x.const is None else node.negated)
        if x.kind == NULL:
            return _bool(None)
        if x.kind != STRING:
            # J37: LIKE on a non-string is FALSE, NOT LIKE TRUE.
            return _V(_unless_null(F.lit(node.negated), x), BOOLEAN)
        hit = x.col.like(like_pattern(node.pattern, node.escape))
        return _V(~hit if node.negated else hit, BOOLEAN)

    def string_test(self, node: n.StringTest, kids: list[_V]) -> _V:
        raise _Fallback(f"{node.op} has no native Spark form yet")

    def activemq_only(self, node: n.Expr, kids: list[_V]) -> _V:
        raise _Fallback(f"ActiveMQ's {type(node).__name__} has no native Spark form")

    def is_null(self, node: n.IsNull, kids: list[_V]) -> _V:
        x = kids[0]
        if x.is_const or x.kind == NULL:
            return _bool((x.const is None) != node.negated)
        return _V(x.col.isNotNull() if node.negated else x.col.isNull(), BOOLEAN)

    def not_(self, node: n.Not, kids: list[_V]) -> _V:
        x = kids[0]
        if x.is_const:
            value = v.as_condition(x.const)
            return _bool(None if value is None else not value)
        return _V(~_as_condition(x), BOOLEAN)

    def logic(self, combine: Callable[[Column, Column], Column], kids: Iterable[_V]) -> _V:
        values = list(kids)
        if all(x.is_const for x in values):
            truths = [v.as_condition(x.const) for x in values]
            if combine is operator.and_:
                result = False if False in truths else (None if None in truths else True)
            else:
                result = True if True in truths else (None if None in truths else False)
            return _bool(result)
        # Spark's AND / OR are SQL's three-valued ones, the spec's tables (J39).
        return _V(reduce(combine, [_as_condition(x) for x in values]), BOOLEAN)

    def and_(self, node: n.And, kids: list[_V]) -> _V:
        return self.logic(operator.and_, kids)

    def or_(self, node: n.Or, kids: list[_V]) -> _V:
        return self.logic(operator.or_, kids)


_Handler = Callable[[_Lowering, Any, list[_V]], _V]

#: Node class -> handler. Every class of n.NODE_TYPES (a test checks it).
_HANDLERS: dict[type[n.Node], _Handler] = {
    n.StringLit: _Lowering.literal,
    n.ExactLit: _Lowering.literal,
    n.ApproxLit: _Lowering.literal,
    n.BoolLit: _Lowering.literal,
    n.NullLit: _Lowering.literal,
    n.Ident: _Lowering.ident,
    n.Negate: _Lowering.negate,
    n.Arith: _Lowering.arith,
    n.Compare: _Lowering.compare,
    n.Between: _Lowering.between,
    n.In: _Lowering.in_,
    n.Like: _Lowering.like,
    n.StringTest: _Lowering.string_test,
    n.IsNull: _Lowering.is_null,
    n.Not: _Lowering.not_,
    n.And: _Lowering.and_,
    n.Or: _Lowering.or_,
    n.Call: _Lowering.activemq_only,
    n.XQuery: _Lowering.activemq_only,
}


# -- Python parts: Arrow UDFs ---------------------------------------------------------------


def _double_text_batch(values: pa.Array) -> pa.Array:
    """Java's Double.toString of each double (J31), once per distinct value."""
    memo: dict[float, str] = {}
    out: list[str | None] = []
    for x in values.to_pylist():
        if x is None:
            out.append(None)
            continue
        # -0.0 == 0.0 and NaN != NaN as dict keys: key by the bits instead.
        key = math.copysign(1.0, x) if x == 0.0 else x
        text = memo.get(key) if x == x else None
        if text is None:
            text = v.java_double_text(x)
            if x == x:
                memo[key] = text
        out.append(text)
    return pa.array(out, pa.string())


_double_text: Any = None


def _arrow_udf(function: Callable[[pa.Array], pa.Array], return_type: T.DataType) -> Any:
    # New in pyspark 4.1 (and missing from its type stubs); native Columns need no UDF.
    make = getattr(F, "arrow_udf", None)
    if make is None:  # pragma: no cover - depends on the installed pyspark
        raise NotNativeError(
            "this filter needs Python per row, which msgfilter runs in an Arrow UDF: "
            "that needs pyspark 4.1 or later"
        )
    return make(function, return_type)


def _double_text_udf() -> Any:
    global _double_text
    if _double_text is None:

        def double_text(values: pa.Array) -> pa.Array:
            return _double_text_batch(values)

        _double_text = _arrow_udf(double_text, T.StringType())
    return _double_text


def evaluate_batch(f: Filter, layout: Layout, rows: Any) -> pa.Array:
    """`f.evaluate` of each row of a struct array whose fields are the frame's columns
    (by their names): the rows seen as messages by the layout's rules."""
    if isinstance(rows, pa.ChunkedArray):
        rows = rows.combine_chunks()
    return pa.array([f.evaluate(m) for m in message_dicts(rows, layout)], pa.bool_())


def message_dicts(rows: Any, layout: Layout = DEFAULT_LAYOUT) -> list[dict[str, object]]:
    """Each row of a struct array (fields named as the frame's columns) as the message
    mapping the layout describes: map entries, overridden by top-level columns, then
    TAGS and KEYS from the tags and keys columns where neither provides them.

    Plain dicts (the per-message backend's fastest input); values of no selector type
    stay as pyarrow gives them (datetime, Decimal, bytes, list, ...), which every
    dialect treats as it treats `msgfilter.arrow.Opaque`.
    """
    names = [rows.type.field(i).name for i in range(rows.type.num_fields)]
    columns = dict(zip(names, rows.flatten(), strict=True))
    count = len(rows)
    out: list[dict[str, object]]
    props = columns.get(layout.properties_column) if layout.properties_column else None
    if props is not None and pa.types.is_map(props.type):
        keys, items = props.keys.to_pylist(), props.items.to_pylist()
        offsets, valid = props.offsets.to_pylist(), props.is_valid().to_pylist()
        out = [
            dict(zip(keys[offsets[r]:offsets[r + 1]], items[offsets[r]:offsets[r + 1]],
                     strict=True)) if valid[r] else {}
            for r in range(count)
        ]
    else:
        out = [{} for _ in range(count)]
    if layout.typed:
        reserved = layout.reserved()
        for name, column in columns.items():
            if name not in reserved:
                for message, value in zip(out, column.to_pylist(), strict=True):
                    message[name] = value
    for name, source in ((TAGS_PROPERTY, layout.tags_column), (KEYS_PROPERTY, layout.keys_column)):
        column = columns.get(source) if source else None
        if column is None:
            continue
        values = column.to_pylist()
        if name == KEYS_PROPERTY:
            values = [_keys_of(v) for v in values]
        for message, value in zip(out, values, strict=True):
            if value is not None:
                message.setdefault(name, value)
    return out


def _keys_of(value: object) -> object:
    """KEYS from a keys column's value: a string as it is, a list of strings joined by
    spaces, NULL for an empty list or one holding anything but strings."""
    if isinstance(value, list):
        ok = value and all(type(key) is str for key in value)
        return " ".join(value) if ok else None
    return value


def _udf_inputs(f: Filter, schema: _Schema) -> list[str]:
    """The top-level columns the per-message UDF needs to build each row's message."""
    layout = schema.layout
    own = [layout.properties_column, layout.tags_column, layout.keys_column]
    wanted = [c for c in own if c is not None and c in schema.fields]
    prefix = getattr(f, "reads_prefix", None)
    for name in schema.typed_names():
        if name in f.identifiers or (prefix is not None and name.startswith(prefix)):
            wanted.append(name)
    return list(dict.fromkeys(wanted))


def udf_column(f: Filter, schema: T.StructType, layout: Layout = DEFAULT_LAYOUT) -> Column:
    """A boolean Column computing `f.evaluate(message)` per row in an Arrow UDF, each row
    seen as a message by the layout's rules (the same answers as the native Column)."""
    resolved = _Schema(schema, layout)
    names = _udf_inputs(f, resolved)
    packed = (
        F.struct(*[column_ref(c).alias(c) for c in names]) if names
        # A UDF needs an input; one with no column the layout could read.
        else F.struct(F.lit(0).alias("#"))
    )
    evaluate = _arrow_udf(_make_evaluator(f, layout), T.BooleanType())
    return evaluate(packed)  # type: ignore[no-any-return]


def _make_evaluator(f: Filter, layout: Layout) -> Callable[[pa.Array], pa.Array]:
    # A closure: cloudpickle ships the filter (as its text, rebuilt through the compile
    # cache on the executor) and the layout with it.
    def evaluate_rows(rows: pa.Array) -> pa.Array:
        return evaluate_batch(f, layout, rows)

    return evaluate_rows


# -- tag filters ------------------------------------------------------------------------------


def _rocketmq_tags(f: Any, schema: _Schema) -> Column:
    if f.subscribe_all:
        return F.lit(True)
    tag = schema.resolve(TAGS_PROPERTY)
    if not f.tags or tag.kind != STRING:
        # The client's re-check wants a string tag in the set; nothing else passes.
        return F.lit(False)
    return F.coalesce(tag.col.isin(*sorted(f.tags)), F.lit(False))


def _pulsar_tags(f: Any, schema: _Schema) -> Column:
    if not (f.any_tags or f.all_tags):
        return F.lit(True)
    prefix: str = f.reads_prefix
    typed = [name for name in schema.typed_names() if name.startswith(prefix)]
    # String columns whose name has the prefix are tags too; every such column, of any
    # type, shadows the map entry of its name (the Layout rule).
    tag_columns = [name for name in typed if isinstance(schema.fields[name], T.StringType)]
    props: Column | None = None
    sources = [f"column {name!r}" for name in tag_columns]
    if schema.props is not None and isinstance(schema.props[1].valueType, T.StringType):
        props = column_ref(schema.props[0])
        sources.insert(0, f"{schema.props[0]}[key starting with {prefix!r}]")
    schema.bindings["(message tags)"] = ", ".join(sources) or "nothing: no tags"

    def has_tag(values: list[str]) -> Column:
        """TRUE where one of `values` is a message tag, else FALSE (never NULL)."""
        found: list[Column] = []
        if props is not None:

            def entry(key: Column, value: Column) -> Column:
                keep = key.startswith(prefix) & value.isin(*values)
                return keep & ~key.isin(*typed) if typed else keep

            # size(NULL) is NULL or -1, never above 0.
            exact = F.coalesce(F.size(F.map_filter(props, entry)) > 0, F.lit(False))
            # A cheap first test on the values alone (no key test, no new map) skips
            # most rows; it is NULL, so inconclusive, when a value is NULL.
            wanted = F.array(*[F.lit(value) for value in values])
            maybe = F.coalesce(F.arrays_overlap(F.map_values(props), wanted), F.lit(True))
            found.append(F.when(maybe, exact).otherwise(F.lit(False)))
        found.extend(
            F.coalesce(column_ref(name).isin(*values), F.lit(False)) for name in tag_columns
        )
        return reduce(operator.or_, found) if found else F.lit(False)

    tests: list[Column] = []
    if f.any_tags:
        tests.append(has_tag(sorted(f.any_tags)))
    tests.extend(has_tag([tag]) for tag in sorted(f.all_tags))
    return reduce(operator.and_, tests)


# -- entry point ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class Lowered:
    """A filter lowered for one schema and layout."""

    #: The boolean Column: TRUE, FALSE or NULL (UNKNOWN) per row.
    column: Column
    #: Identifier -> where its value is read from.
    bindings: tuple[tuple[str, str], ...]
    #: (part of the expression, why) for each part evaluated in Python (an Arrow UDF);
    #: a part "*" is the whole filter.
    udf_parts: tuple[tuple[str, str], ...]

    @property
    def native(self) -> bool:
        return not self.udf_parts


def _spark_safe(text: str) -> bool:
    """Spark strings are UTF-8: text with a lone surrogate cannot be one."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _tree_strings(tree: n.Expr) -> Iterable[str]:
    stack: list[n.Node] = [tree]
    while stack:
        node = stack.pop()
        stack.extend(n.children(node))
        if isinstance(node, n.StringLit | n.StringTest):
            yield node.value
        elif isinstance(node, n.Ident):
            yield node.name
        elif isinstance(node, n.In):
            yield from node.items
        elif isinstance(node, n.Like):
            yield node.pattern


def _fallback_reason(f: Filter) -> str | None:
    """Why `f` as a whole cannot be native, or None."""
    texts: Iterable[str]
    tree = getattr(f, "tree", None)
    if hasattr(f, "tree"):
        if f.dialect != "jms":
            return f"the {f.dialect!r} dialect has no native Spark lowering yet"
        texts = () if tree is None else _tree_strings(tree)
    elif f.dialect == "rocketmq-tag":
        texts = f.tags  # type: ignore[attr-defined]
    elif f.dialect == "pulsar-tag":
        texts = f.any_tags | f.all_tags  # type: ignore[attr-defined]
    else:
        return f"no native Spark lowering for {type(f).__name__}"
    if not all(map(_spark_safe, texts)):
        return "the expression holds text with a lone surrogate, which no Spark string holds"
    return None


def _require_spark() -> None:
    from pyspark import SparkContext
    from pyspark.sql.utils import is_remote

    if not is_remote() and SparkContext._active_spark_context is None:
        # pyspark would fail with a bare AssertionError deep inside F.col.
        raise RuntimeError(
            "msgfilter.spark builds Spark expressions: start a SparkSession first"
        )


def lower(f: Filter, schema: T.StructType, layout: Layout = DEFAULT_LAYOUT) -> Lowered:
    """`f` as a boolean Column over frames of `schema`: native where Spark can express
    it, an Arrow UDF where it cannot. Raises LayoutError for a properties column that is
    not a map<string, ...>; never because of the data."""
    _require_spark()
    resolved = _Schema(schema, layout)
    reason = _fallback_reason(f)
    column: Column | None = None
    parts: list[tuple[str, str]] = []
    lowering: _Lowering | None = None
    if reason is None:
        try:
            if f.dialect == "rocketmq-tag":
                column = _rocketmq_tags(f, resolved)
            elif f.dialect == "pulsar-tag":
                column = _pulsar_tags(f, resolved)
            else:
                tree: n.Expr | None = f.tree  # type: ignore[attr-defined]
                if tree is None:
                    column = F.lit(True)
                else:
                    lowering = _Lowering(resolved, f.text)
                    column = lowering.run(tree)
                    parts = lowering.udf_parts
        except _Fallback as fallback:
            reason = fallback.reason
    if reason is not None:
        column = udf_column(f, schema, layout)
        parts = [("*", reason)]
    assert column is not None
    return Lowered(column, tuple(sorted(resolved.bindings.items())), tuple(parts))
