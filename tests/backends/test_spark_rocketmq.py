"""The `rocketmq` dialect in Spark, natively: string properties converted by Java's valueOf
rules (signs, Unicode digits, the int and long edges, NaN, Infinity, hexadecimal, suffixes,
padding), Double.compareTo, the asymmetric NULL rules, CONTAINS & co. and "not delivered"
(UNKNOWN) where the broker throws, left to right. The per-message backend is the
reference; the edge tables run batched into one frame, with ANSI mode on and off, in
Spark's interpreter and in generated code. The corpora run in tests/test_conformance.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyspark.sql import types as T
from test_arrow_rocketmq import NUMERIC_STRINGS, ROCKETMQ, conditions, strings
from test_spark import both_ways, codegen, frame, grid

import msgfilter
import msgfilter.spark as ms
from msgfilter.errors import FilterError
from msgfilter.filter import Filter
from msgfilter.syntax import nodes as n
from msgfilter.syntax.unparse import unparse

from conformance import sql_conf

pytestmark = pytest.mark.spark

STRING_MAP = T.MapType(T.StringType(), T.StringType())
SCHEMA = T.StructType([
    T.StructField("l", T.LongType()), T.StructField("i", T.IntegerType()),
    T.StructField("d", T.DoubleType()), T.StructField("fl", T.FloatType()),
    T.StructField("bo", T.BooleanType()), T.StructField("s", T.StringType()),
    T.StructField("properties", STRING_MAP),
])
COLUMNS = ("l", "i", "d", "fl", "bo", "s")

# Texts around Java's parsers beyond the Arrow tests' list: the 64-bit edges with leading
# zeros and signs, Unicode digits beside ASCII ones, what Spark's cast reads differently.
MORE_TEXTS = [
    "-9223372036854775808", "-9223372036854775809", "+9223372036854775807",
    "00000000000000000000009223372036854775807", "-2147483649", "+0", "٣٣", "３",
    "1.5", " 1", "1 ", "1L", "0x10", "1e", "e1", ".", "+.5e+1D", "-NaN", "+Infinity",
    "Infinityd", "NaNd", "0x1p3d", "0x1.p-1074", "0x.1", "2.4703282292062328e-324",
    "1.7976931348623159e308", "\u00a01", "\x001\x1f", "1e-400", "-0e0", "INF", "infinity",
    "tRUE", "true ", "\U0001d7d9",
]
# Where the conversions read the text with Spark's cast before Java's grammar: texts the
# cast reads otherwise than Java (its words for the infinities and NaN, its trimming, its
# truncation of a long), or refuses where Java accepts (Unicode digits), and long texts.
CAST_TEXTS = [
    "1e5", " 5", "5 ", "5d", "5.", "5.0", "+5", "-0", "0x10", "1_000", "１２", "1٣", "+٣",
    "-inf", "+inf", "Inf", "NAN", " nan ", "+infinity", "-Infinity ", " NaN", "NaN ",
    "+NaN", "Infinityf", "\u20025", "5\u3000", "\u00855", "5\x00", "1" + "0" * 400,
    "0." + "0" * 400 + "1", "9" * 30, "-" + "9" * 19, "0" * 30 + "2147483648",
    "2147483648.0", "-2147483648", "-2147483649", "1e-400", "-1e400", "0x1p1024",
    "0x1p-1075", "4.9e-324d", "1.0000000000000001", "00.5", "5e", "e5", "--5", "+-5",
]
TEXTS = list(dict.fromkeys([*NUMERIC_STRINGS, *MORE_TEXTS, *CAST_TEXTS]))
DOUBLES = [0.0, -0.0, 1.0, 1.5, math.nan, math.inf, -math.inf, 3.0, 1e20, 2.0**53, 5e-324]


def _rows() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for k, text in enumerate(TEXTS):
        rows.append({
            "properties": {"a": text, "b": TEXTS[(k * 7 + 3) % len(TEXTS)],
                           "c": TEXTS[(k * 11 + 5) % len(TEXTS)] if k % 3 else None},
            "s": TEXTS[(k * 5 + 1) % len(TEXTS)] if k % 4 else None,
            "l": [0, 1, -1, 2**31, 2**63 - 1, -(2**63), None][k % 7],
            "i": [3, -3, 0, 2**31 - 1, None][k % 5],
            "d": DOUBLES[k % len(DOUBLES)] if k % 6 else None,
            "fl": [1.5, -0.0, 0.25, math.nan, None][k % 5],
            "bo": [True, False, None][k % 3],
        })
    rows.append({})  # everything NULL
    return rows


def _message(row: dict[str, object]) -> dict[str, object]:
    message: dict[str, object] = dict(row.get("properties") or {})  # type: ignore[call-overload]
    message.update({k: row.get(k) for k in COLUMNS})
    return message


_LITERALS = ("1", "3", "-3", "0", "2147483647", "2147483648", "-2147483648", "5000000000",
             "9223372036854775807", "3.0", "0.0", "-0.0", "1e300", "4.9E-324", "TRUE", "FALSE",
             "'3'", "'NaN'", "'1.0'", "'-0.0'", "'abc'")
EDGE_SELECTORS = [
    *(f"{x} {op} {lit}" for x in ("a", "b", *COLUMNS) for lit in _LITERALS
      for op in ("=", "<>", "<", ">=") if not (lit[0] in "'TF" and op in ("<", ">="))),
    *(f"{lit} {op} a" for lit in _LITERALS for op in ("=", "<>", ">")
      if not (lit[0] in "'TF" and op == ">")),
    *(f"{x} {op} {y}" for x in ("a", "d", "s", "l", "bo") for y in ("b", "d", "fl", "s")
      for op in ("=", "<>", "<")),
    # NULL: asymmetric in = and <>, UNKNOWN in an ordering
    "missing = 1", "1 = missing", "missing = missing2", "'x' <> missing", "missing <> 'x'",
    "a = missing", "missing < a", "-a = 1", "-a IS NULL", "- -3 = a", "-(3.0) < a",
    # IN, CONTAINS & co., IS NULL, bare identifiers
    "a IN ('1', '3', 'NaN')", "a NOT IN ('3')", "d IN ('1.0', 'NaN', '-0.0', '1', 'x')",
    "d NOT IN ('Infinity')", "fl IN ('1.5')", "l IN ('1')", "bo IN ('true')",
    "missing IN ('1')", "a CONTAINS '1'", "a NOT CONTAINS '1'", "a STARTSWITH ''",
    "NOT (a STARTSWITH '')", "a NOT ENDSWITH ''", "missing NOT CONTAINS 'x'",
    "a ENDSWITH 'd'", "s STARTSWITH '-'", "l ENDSWITH '7'", "bo CONTAINS 'ue'",
    "d CONTAINS '.'", "d NOT ENDSWITH '0'", "a IS NULL", "c IS NOT NULL", "a", "NOT a",
    "missing", "NOT missing", "TRUE", "NULL IS NULL",
    # BETWEEN and throws within AND / OR, left to right
    "a BETWEEN 1 AND 3", "a NOT BETWEEN 1 AND 3", "a BETWEEN -0.0 AND 0.0",
    "d BETWEEN 0 AND 2.0", "a = 1 OR b = 2", "b = 2 OR a = 1", "a > 1 AND FALSE",
    "FALSE AND a > 1", "TRUE OR a > 1", "(c = 1 AND a > 1) OR b = 'y'",
    "NOT (a = 3)", "(a = 3) = TRUE", "(a = 3) = (b = 3)", "TRUE = a", "TRUE = (a = 3)",
    "a = TRUE OR TRUE = b", "(a > 0) IS NULL",
    # constants with the per-message rules
    "1 = 1.0", "'x' = 'x'", "-2147483648 = -2147483648", "3 = '3'",
]


def _filters(texts: Sequence[str]) -> list[Filter]:
    return [msgfilter.compile(text, "rocketmq") for text in texts]


def _check(answers: list[list[bool | None]], filters: Sequence[Filter],
           messages: Sequence[dict[str, object]]) -> None:
    wrong = [
        (f.text, messages[r], answers[r][i], f.evaluate(messages[r]))
        for r in range(len(messages)) for i, f in enumerate(filters)
        if answers[r][i] != f.evaluate(messages[r])
    ]
    texts = sorted({text for text, *_ in wrong})
    assert not wrong, f"{len(wrong)} wrong, of {texts[:20]}: {wrong[:6]}"


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_edge_tables_agree_in_the_interpreter_and_in_generated_code(
    spark: Any, ansi: str
) -> None:
    rows = _rows()
    messages = [_message(row) for row in rows]
    filters = _filters(EDGE_SELECTORS)
    with sql_conf(spark, {"spark.sql.ansi.enabled": ansi}):
        interpreted, generated = both_ways(spark, frame(spark, SCHEMA, rows), filters)
    _check(interpreted, filters, messages)
    _check(generated, filters, messages)


def test_every_conversion_of_every_text_to_every_literal(spark: Any) -> None:
    # Integer / Long / Double / Boolean.valueOf of each text, as the broker reads it: the
    # texts in one column, every literal in one select.
    literals = ["0", "2147483647", "2147483648", "-2147483648", "9223372036854775807",
                "0.0", "-0.0", "1e-300", "TRUE"]
    filters = _filters([f"a {op} {lit}" for lit in literals for op in ("=", "<", ">")
                        if not (lit == "TRUE" and op != "=")]
                       + ["a > b", "a = b", "a <= b", "a <> b"])
    rows = [{"properties": {"a": t, "b": u}} for t in TEXTS for u in ("0", "NaN", "-0")]
    with codegen(spark):
        answers = grid(frame(spark, SCHEMA, rows), filters)
    _check(answers, filters, [_message(row) for row in rows])


def test_answers_written_out(spark: Any) -> None:
    # docs/rocketmq.md's rules, not only the reference's answers.
    texts = ["a = 3", "a = 3.0", "3 = a", "a > 1", "a = TRUE", "-0.0 < a"]
    filters = _filters(texts)
    rows = [{"properties": {"a": v}} for v in ("3", " 3", "3d", "0x1.8p1", "TRUE", "0", None)]
    got = grid(frame(spark, SCHEMA, rows), filters)
    assert [r[0] for r in got] == [True, None, None, None, None, False, None]
    assert [r[1] for r in got] == [True, True, True, True, None, False, None]
    assert [r[2] for r in got] == [True, None, None, None, None, False, False]
    assert [r[4] for r in got] == [False, False, False, False, True, False, None]
    assert [r[5] for r in got] == [True, True, True, True, None, True, None]


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_texts_spark_casts_otherwise_convert_as_java_does(spark: Any, ansi: str) -> None:
    # Each text against an int, a long and a double literal, alone and within AND / OR
    # (a throw is UNKNOWN unless an operand to its left decided), in the interpreter,
    # in generated code, and as a `where` (a Filter's generated code, where each operand's
    # conversion is written out once in the answer).
    texts = ["a = 5", "a > -1", "a < 2147483648", "a >= -9223372036854775807",
             "a = 5.0", "a > 1.0", "a < -1e300", "a <= 0.0", "a = -0.0", "a > b",
             "b = 'x' AND a > 1.0 AND c IN ('y')", "a > 1.0 OR b = 'x'",
             "b = 'x' OR a = 5 OR c = 'z'", "NOT (a > 0.0 AND b = 'x')", "a BETWEEN 1 AND 9"]
    filters = _filters(texts)
    rows = [
        {"properties": {"a": t, "b": ["x", "5", None][k % 3], "c": ["y", None][k % 2]}}
        for k, t in enumerate(t for t in TEXTS for _ in range(3))
    ]
    messages = [_message(row) for row in rows]
    with sql_conf(spark, {"spark.sql.ansi.enabled": ansi}):
        df = frame(spark, SCHEMA, [{**row, "s": str(k)} for k, row in enumerate(rows)])
        interpreted = grid(df, filters)
        with codegen(spark):
            generated = grid(df, filters)
            kept = [{int(r.s) for r in ms.where(df.select("s", "properties"), f).collect()}
                    for f in filters]
    _check(interpreted, filters, messages)
    _check(generated, filters, messages)
    for i, f in enumerate(filters):
        matched = {r for r, message in enumerate(messages) if f.evaluate(message) is True}
        assert kept[i] == matched, (f.text, sorted(kept[i] ^ matched)[:10])


def test_spark_only_number_words_are_not_delivered(spark: Any) -> None:
    # Spark's cast reads "inf" and "nan" (any case) where Java's Double.valueOf throws,
    # " 5" and "5.0" where Integer.valueOf throws, and refuses the full-width "５" that
    # Integer.valueOf reads (Double.valueOf does not). Java's own words still convert.
    filters = _filters(["a > 1.0", "a = 5", "a = 5.0", "a <> 1.0"])
    values = ["inf", "-INF", "nan", "Infinity", " -Infinity\t", "NaN", " 5", "5.0", "5d", "５"]
    got = grid(frame(spark, SCHEMA, [{"properties": {"a": t}} for t in values]), filters)
    assert [r[0] for r in got] == [None, None, None, True, False, True, True, True, True, None]
    assert [r[1] for r in got] == [None] * 9 + [True]
    assert [r[2] for r in got] == [None, None, None, False, False, False, True, True, True,
                                   None]
    assert [r[3] for r in got] == [None, None, None, True, True, True, True, True, True, None]


def test_explain_shows_no_python_part(spark: Any) -> None:
    for f in _filters(EDGE_SELECTORS):
        plan = ms.explain(f, SCHEMA)
        # Only a double column's text (Double.toString) where text itself is compared.
        assert all("Double.toString" in why for _, why in plan.udf_parts), (f.text, plan)
        if "d" not in f.identifiers and "fl" not in f.identifiers:
            assert plan.native, (f.text, plan.udf_parts)
    for text in ("d = '1.0'", "d IN ('1.0')", "d > s", "d = 1", "d BETWEEN 1 AND 2"):
        assert ms.explain(msgfilter.compile(text, "rocketmq"), SCHEMA).native, text
    plan = ms.explain(msgfilter.compile("a = 1 AND d CONTAINS '.'", "rocketmq"), SCHEMA)
    assert plan.udf_parts == (
        ("d CONTAINS '.'", "a double column written as text (Java's Double.toString)"),
    )
    assert dict(plan.bindings)["a"] == "properties['a'] (string)"
    # The tag dialects are native too.
    for text, dialect in (("TagA || TagB", "rocketmq-tag"), ("*", "rocketmq-tag")):
        assert ms.explain(msgfilter.compile(text, dialect), SCHEMA).native


# -- Hypothesis: the Arrow tests' selectors over string properties, batched --------------------

HYPOTHESIS_SCHEMA = T.StructType([T.StructField("properties", STRING_MAP)])
_row = st.dictionaries(st.sampled_from(["a", "b", "c", "TAGS"]), st.one_of(st.none(), strings),
                       max_size=4)


@settings(max_examples=6, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.lists(conditions, min_size=24, max_size=24), st.lists(_row, min_size=12, max_size=12))
def test_hypothesis_selectors_agree_with_the_per_message_backend(
    spark: Any, trees: list[n.Expr], rows: list[dict[str, str | None]]
) -> None:
    filters: list[Filter] = []
    for tree in trees:
        try:
            filters.append(msgfilter.compile(unparse(tree, ROCKETMQ), "rocketmq"))
        except FilterError:
            continue
    frame_rows = [{"properties": row} for row in rows]
    with codegen(spark):
        answers = grid(frame(spark, HYPOTHESIS_SCHEMA, frame_rows), filters)
    messages = [{k: v for k, v in row.items() if v is not None} for row in rows]
    _check(answers, filters, messages)
    assert all(ms.explain(f, HYPOTHESIS_SCHEMA).native for f in filters)
