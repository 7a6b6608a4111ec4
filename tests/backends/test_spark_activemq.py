"""The `activemq` dialect in Spark against the per-message backend: every column has the
Java class of its Spark type (byte a Byte, int an Integer, float a Float, ...), and the
native lowering must give `Filter.evaluate`'s answer for the row seen as a message of
those Java values, throws included (an exception is UNKNOWN). The edge tables run
batched into a few frames, with ANSI mode on and off; the activemq corpora run against
Spark in tests/test_conformance.py.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import pytest

pytest.importorskip("pyspark")
pa = pytest.importorskip("pyarrow")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pyspark.sql import types as T  # noqa: E402
from test_spark import both_ways, codegen, frame, grid  # noqa: E402

import msgfilter  # noqa: E402
import msgfilter.spark as ms  # noqa: E402
from msgfilter import jtypes  # noqa: E402
from msgfilter.filter import Filter  # noqa: E402
from msgfilter.testing.strategies import selector_cases  # noqa: E402

from conformance import sql_conf  # noqa: E402

pytestmark = pytest.mark.spark

STRING_MAP = T.MapType(T.StringType(), T.StringType())

#: Column -> (Spark type, Java class of its values).
COLUMNS: dict[str, tuple[T.DataType, Any]] = {
    "by": (T.ByteType(), jtypes.Byte), "sh": (T.ShortType(), jtypes.Short),
    "i": (T.IntegerType(), jtypes.Int), "l": (T.LongType(), jtypes.Long),
    "fl": (T.FloatType(), jtypes.Float), "d": (T.DoubleType(), jtypes.Double),
    "s": (T.StringType(), str), "t": (T.StringType(), str), "bo": (T.BooleanType(), bool),
}
NUMBERS = ("by", "sh", "i", "l", "fl", "d")
SCHEMA = T.StructType(
    [T.StructField(name, dtype) for name, (dtype, _) in COLUMNS.items()]
    + [T.StructField("nothing", T.NullType()), T.StructField("properties", STRING_MAP)]
)
INT_MAX, INT_MIN, LONG_MAX, LONG_MIN = 2**31 - 1, -(2**31), 2**63 - 1, -(2**63)


def _rows() -> list[dict[str, object]]:
    f32 = jtypes.to_float32
    return [
        dict(by=1, sh=1, i=1, l=1, fl=1.0, d=1.0, s="1", t="true", bo=True,
             properties={"m": "x"}),
        dict(by=127, sh=32767, i=INT_MAX, l=LONG_MAX, fl=f32(1.1), d=1.1, s="12", t="TRUE",
             bo=False, properties={"m": "12"}),
        dict(by=-128, sh=-32768, i=INT_MIN, l=LONG_MIN, fl=math.nan, d=math.nan, s=" 12",
             t="x", bo=True),
        dict(by=0, sh=0, i=0, l=0, fl=-0.0, d=0.0, s="1.5", t="", bo=False),
        dict(by=-1, sh=2, i=16777217, l=16777217, fl=16777216.0, d=-0.0, s="NaN", t="a",
             properties={}),
        dict(by=2, sh=-7, i=-7, l=2**53 + 1, fl=math.inf, d=-math.inf, s="\uffff", t="😀",
             bo=None, properties=None),
        dict(i=2, l=-1, fl=2.5, d=2.0**53, s="", t="a\nb"),
        dict(),  # everything NULL
    ]


def java_message(row: dict[str, object]) -> dict[str, object]:
    """A row as the activemq dialect must see it: each value of its column's Java class."""
    message: dict[str, object] = dict(row.get("properties") or {})  # type: ignore[call-overload]
    for name, (_, cls) in COLUMNS.items():
        value = row.get(name)
        message[name] = None if value is None else cls(value)
    message["nothing"] = None
    return message


def _pairs() -> list[str]:
    """The comparison ladder for every pair of classes (numbers, strings, booleans)."""
    names = (*NUMBERS, "s", "bo")
    out = [f"{a} {op} {b}" for a, b in itertools.product(names, names)
           for op in ("=", "<>", "<", ">=")]
    # Literals: an Integer, a Long, a BigDecimal and a Double on either side.
    for a in (*NUMBERS, "bo"):
        for lit in ("1", "2147483648", "9223372036854775808", "1.1", "0.0", "-0.0", "0.0/0"):
            out += [f"{a} = {lit}", f"{lit} = {a}", f"{a} > {lit}", f"{lit} <= {a}"]
    return out


EDGE_SELECTORS = [
    *_pairs(),
    # NULL is asymmetric in `=`; ordering with NULL is UNKNOWN.
    "missing = 1", "1 = missing", "missing = missing2", "NOT (1 = missing)", "'x' <> missing",
    "NOT NULL IS NULL", "missing % 0 IS NULL", "missing % i > 1", "i % missing IS NULL",
    "missing <> 'x'", "i = missing", "missing < 1", "1 < missing", "nothing = i",
    "i = nothing", "(i = 1) = (missing = 2)", "(missing = 1) = (missing2 = 2)",
    # 32-bit and 64-bit wrap-around; byte and short arithmetic in ints
    "i + 1 < 0", "i * 2 = -2", "i * i = 1", "i - 1 > 0", "by + by = 254", "sh * sh > 0",
    "l + 1 < 0", "l * 2 = -2", "-i = i", "-l = l", "i + l > 0", "by * 1.5 = 190.5",
    "2147483647 + 1 < 0", "9223372036854775808 + i = i", "99999999999999999999 + 0 = i",
    "i + 9223372036854775808 = i", "-(i) < 0", "- -i = i",
    # division and modulo in doubles
    "i / 0 > 1", "i / -0.0 < 0", "7 / 2 = 3.5", "i / 2 = 0.5", "l / i = 1", "d / 0 = d / 0",
    "i % 0 = i % 0", "i % 0 <> i % 0", "d % 2 = 1.1", "l % 3 = 1", "fl % 0.5 = 0",
    "fl + fl = 2.2", "fl * 2 > fl", "d - fl = 0", "i / fl = 1",
    # NaN and signed zeros by Double.compareTo
    "d = d", "d <> d", "d > 1", "d < 1", "fl = fl", "d = -d", "fl > -fl", "d BETWEEN 0 AND 1",
    "d NOT BETWEEN 0 AND 1", "-d = 0", "-d < 0", "-fl = 0.0", "0.0 * -1 = -0.0",
    # throws: Double vs Float, negating a Byte or Short, arithmetic on strings and booleans
    "d = fl", "1.5 = fl", "d < fl", "fl = d", "-by = 1", "-sh IS NULL", "s - 1 = 0",
    "bo + 1 = 2", "1 + s = 2", "s * 2 IS NULL", "1 + bo IS NULL", "-s IS NULL", "-bo IS NULL",
    # ... within AND / OR, left to right
    "TRUE OR d = fl", "d = fl OR TRUE", "FALSE AND d = fl", "d = fl AND FALSE",
    "i > 0 AND -by = 1", "i > 0 OR -by = 1", "missing = 1 AND -by = 1", "bo OR s - 1 = 0",
    "NOT (d = fl)", "(d = fl) IS NULL", "missing + (bo + 1) = 1", "missing < bo + 1",
    "missing = bo + 1", "(bo + 1) + missing = 1", "i BETWEEN fl AND d",
    # strings: + writes the right side as Java does, UTF-16 order
    "s + 1 = '11'", "s + i = s + i", "'x' + by = 'x1'", "'x' + bo = 'xtrue'", "'' + l = '1'",
    "'' + d = '1.0'", "s + missing IS NULL", "s > t", "s < t", "s >= s", "t BETWEEN s AND s",
    # IN, LIKE, IS NULL, bare identifiers
    "s IN ('1', '12')", "s NOT IN ('1')", "i IN ('1')", "i NOT IN ('1')", "missing IN ('1')",
    "m IN ('x')", "s LIKE '1%'", "s LIKE '_2'", "s NOT LIKE '%'", "i LIKE '%'",
    "i NOT LIKE '%'", "t LIKE 'a_b'", "t LIKE '_'", "s LIKE '1.5'", "s LIKE 'x!%' ESCAPE '!'",
    "(i > 0) LIKE 'x'", "'abc' LIKE 'a%'", "i IS NULL", "d + 1 IS NOT NULL", "bo", "NOT bo",
    "i", "NOT i", "nothing", "NOT nothing", "missing", "bo = (i > 0)", "bo > bo",
    "m = 'x'", "m = 12", "XQUERY '//a'", "NOT XQUERY '//a'",
    # constants fold with the per-message rules
    "1 + 2 = 3", "'a' + 1 = 'a1'", "7 / 0 > 1", "NULL IS NULL", "TRUE", "NULL", "1.5 = 1.5",
    "-(2147483648) = -2147483648", "0x10 = 16",
]

#: With the convert_string_expressions: prefix (string constants fold as numbers).
CONVERT_SELECTORS = [
    "i = '1'", "'1' = i", "l > '0' + ''", "'12' + '' <= by", "d = '1.1'", "fl = '1.1'",
    "i = 'x'", "i = ' 1'", "'1.5' = d", "bo = 'true'", "'TRUE' = bo", "t = bo", "bo = t",
    "s = i", "i < '2147483648' + ''", "sh = '32767'", "by = '-128'", "d = 'NaN'",
    "fl > '1e3' + ''", "s + '' < i", "i > s + ''",
    "'x' = bo OR TRUE", "TRUE OR bo = 'x'",
]


def _filters(texts: Sequence[str], prefix: str = "") -> list[Filter]:
    return [msgfilter.compile(prefix + text, "activemq") for text in texts]


def _check(answers: list[list[bool | None]], filters: Sequence[Filter],
           messages: Sequence[dict[str, object]]) -> None:
    wrong = [
        (f.text, messages[r], answers[r][i], f.evaluate(messages[r]))
        for r in range(len(messages)) for i, f in enumerate(filters)
        if answers[r][i] != f.evaluate(messages[r])
    ]
    texts = sorted({text for text, *_ in wrong})
    assert not wrong, f"{len(wrong)} wrong, of {texts}: {wrong[:6]}"


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_edge_tables_agree_in_the_interpreter_and_in_generated_code(
    spark: Any, ansi: str
) -> None:
    rows = _rows()
    messages = [java_message(row) for row in rows]
    filters = _filters(EDGE_SELECTORS) + _filters(CONVERT_SELECTORS, "convert_string_expressions:")
    with sql_conf(spark, {"spark.sql.ansi.enabled": ansi}):
        interpreted, generated = both_ways(spark, frame(spark, SCHEMA, rows), filters)
    _check(interpreted, filters, messages)
    _check(generated, filters, messages)


#: Selectors that run whole in Python, and why.
FALLBACKS = {
    "convert_string_expressions:s = i": "valueOf",
    "convert_string_expressions:s + '' < i": "valueOf",
    "convert_string_expressions:i > s + ''": "valueOf",
    "convert_string_expressions:t = bo": None,  # Boolean.valueOf is native
    "convert_string_expressions:bo = t": None,
    "REGEX('1.*', s)": "functions",
    "INLIST(SPLIT('1,12', ','), s)": "functions",
    "'x' + fl = 'x1.0'": "Float.toString",
}


def test_the_edge_tables_are_native_and_explain_what_stays_in_python(spark: Any) -> None:
    schema = T.StructType([*SCHEMA.fields, T.StructField("dec", T.DecimalType(10, 2))])
    for f in _filters(EDGE_SELECTORS) + _filters(CONVERT_SELECTORS, "convert_string_expressions:"):
        plan = ms.explain(f, schema)
        if f.text in FALLBACKS:
            continue
        # Only a double written as text (Double.toString) runs in Python beside them.
        assert all("Double.toString" in why for _, why in plan.udf_parts), (f.text, plan)
    for text, why in FALLBACKS.items():
        plan = ms.explain(msgfilter.compile(text, "activemq"), schema)
        if why is None:
            assert plan.native, text
        else:
            assert plan.udf_parts[0][0] == "*" and why in plan.udf_parts[0][1], plan.udf_parts
    # A double written as text is the one part that stays in Python beside native parts.
    mixed = ms.explain(msgfilter.compile("i > 0 AND 'x' + d = 'x1.0'", "activemq"), schema)
    assert mixed.udf_parts == (("d", "a double written as text (Java's Double.toString)"),)
    # A column without a Java class: the dialect compares its Python objects.
    dec = ms.explain(msgfilter.compile("dec = dec", "activemq"), schema)
    assert "no Java class" in dec.udf_parts[0][1]
    assert dict(ms.explain(msgfilter.compile("i = 1", "activemq"), schema).bindings) == {
        "i": "column 'i' (int)"
    }


def test_the_fallback_sees_each_value_with_its_java_class(spark: Any) -> None:
    # The same rows through the per-message Arrow UDF: an int column's values are
    # Integers there too (a plain Python int would be a Long to the dialect).
    rows = _rows()
    messages = [java_message(row) for row in rows]
    texts = ["i + 1 < 0", "1 = sh", "sh = 1", "d = fl", "fl = 1.1", "-by = 1", "m = 'x'",
             "i * 2 = -2", "fl = fl", "l + 1 < 0", "REGEX('1.*', s) OR i + 1 < 0"]
    filters = _filters(texts)
    df = frame(spark, SCHEMA, rows)
    columns = [ms.filter_udf(f, df).alias(f"u{i}") for i, f in enumerate(filters)]
    answers = [list(row) for row in df.select(*columns).collect()]
    _check(answers, filters, messages)


def test_edge_answers_are_activemqs(spark: Any) -> None:
    # A few answers written out (activemq-selectors.md), not only the reference's.
    texts = ["i + 1 < 0", "sh = 1", "1 = sh", "d = fl", "fl = 1.1", "1 = missing",
             "missing = 1", "-by = 1", "l + 1 < 0", "i = 16777216.0", "fl = i"]
    got = grid(frame(spark, SCHEMA, _rows()[:5]), _filters(texts))
    assert got[1] == [True, False, False, None, False, False, None, None, True, False, False]
    assert got[0] == [False, True, False, None, False, False, None, None, False, False, True]
    # Integer 16777217 as a float is 16777216: equal to the float column.
    assert got[4][-1] is True


# -- Hypothesis: the per-message backend and Spark on random selectors and Java values -------

HYPOTHESIS_TYPES = {"a": "long", "b": "double", "s": "string", "t": "boolean", "k": "long"}
HYPOTHESIS_SCHEMA = T.StructType(
    [T.StructField("a", T.IntegerType()), T.StructField("b", T.FloatType()),
     T.StructField("s", T.StringType()), T.StructField("t", T.BooleanType()),
     T.StructField("k", T.LongType()), T.StructField("properties", STRING_MAP)]
)


def _selector_cases() -> Any:
    # The jms strategies' selectors, those the activemq grammar accepts too, over an
    # Integer `a`, a Float `b` and a Long `k`: the ladder's asymmetric pairs.

    return selector_cases(
        identifiers=tuple(HYPOTHESIS_TYPES), types=HYPOTHESIS_TYPES, max_messages=3
    )


def _hypothesis_row(message: dict[str, object]) -> dict[str, object]:
    """The generated message's values as the columns hold them: the long `a` wrapped to
    an Integer, the double `b` rounded to a Float; the row is also the message of Java
    values (a plain int `k` is a Long to the dialect)."""
    row = {k: message.get(k) for k in ("s", "t", "k")}
    for name, cls in (("a", jtypes.Int), ("b", jtypes.Float)):
        value = message.get(name)
        row[name] = None if value is None else cls(value)
    return row


@settings(max_examples=4, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.lists(st.deferred(_selector_cases), min_size=16, max_size=16))
def test_hypothesis_selectors_agree_with_the_per_message_backend(
    spark: Any, cases: list[tuple[str, list[dict[str, object]]]]
) -> None:
    filters: list[Filter] = []
    for text, _ in cases:
        try:
            filters.append(msgfilter.compile(text, "activemq"))
        except msgfilter.FilterError:
            continue  # a jms selector ActiveMQ's grammar refuses
    rows = [_hypothesis_row(m) for _, found in cases for m in found]
    with codegen(spark):
        answers = grid(frame(spark, HYPOTHESIS_SCHEMA, rows), filters)
    _check(answers, filters, rows)
