"""amqp-sql in Spark: the native table's answers are the per-message evaluator's on a
frame of every column kind (NaN and infinities, longs beyond 2**53, UTF-8 order), and
`explain` says which filters run natively and which in the fallback UDF."""

from __future__ import annotations

import math
from typing import Any

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")

from pyspark.sql import types as T
from test_spark import frame as spark_frame

import msgfilter
import msgfilter.spark as ms
from msgfilter.amqp import property_filter

pytestmark = pytest.mark.spark

SCHEMA = T.StructType([
    T.StructField("a", T.LongType()), T.StructField("i", T.IntegerType()),
    T.StructField("d", T.DoubleType()), T.StructField("f", T.FloatType()),
    T.StructField("b", T.BooleanType()), T.StructField("s", T.StringType()),
    T.StructField("properties", T.MapType(T.StringType(), T.StringType())),
])
ROWS: list[tuple[Any, ...]] = [
    (1, 1, 2.5, 1.5, True, "x", {"k": "v"}),
    (2, -7, math.nan, None, False, "B", {}),
    (None, 0, -0.0, -0.0, None, "a", {"k": "w"}),
    (9007199254740993, 2, 1e300, math.inf, True, "é", None),
    (-3, None, math.inf, 2.5, False, "", {"k": "1"}),
    (-(2**63), 2**31 - 1, None, 0.25, True, "日本", {"s": "shadow"}),
]
NATIVE = [
    "a = 1.0 OR s > 'B'", "a > 2.5", "a < -2.5", "a <= -9.3E18", "a = 9007199254740992.0",
    "a <> 2.5", "d > 2", "d = 0", "d IS NULL", "f = 1.5", "f > 0.1", "i = 2", "i >= 1.0E10",
    "s LIKE 'x%'", "s LIKE '%'", "s LIKE 'é%'", "s NOT LIKE '%a'", "s LIKE 'a%b'",
    "a IN (1, 2.0, 'x')", "a NOT IN (1)", "s IN ('x', 'é', 1)", "b", "NOT b", "b = TRUE",
    "b > FALSE", "s < 1", "s <> 1", "k = 'w'", "k IS NULL", "a", "NOT s", "b AND a > 0",
    "b OR d > 0", "s = 'é'", "s > 'z'", "-2 < a", "a LIKE 'x'", "missing IS NULL",
]
FALLBACK = ["s LIKE 'a_'", "a + 1 > 0", "p.subject = 'x'", "UTC() > 0", "a = 0x01",
            "a > d", "a = 99999999999999999999"]


@pytest.fixture(scope="module")
def frame(spark: Any) -> Any:
    # Through Arrow (test_spark.frame): no Python worker reads the rows.
    names = [f.name for f in SCHEMA.fields]
    return spark_frame(spark, SCHEMA, [dict(zip(names, row, strict=True)) for row in ROWS])


def _message(row: tuple[Any, ...]) -> dict[str, object]:
    *values, props = row
    names = [f.name for f in SCHEMA.fields][:-1]
    return {**dict(props or {}), **dict(zip(names, values, strict=True))}


def test_native_filters_agree_with_the_evaluator(frame: Any) -> None:
    filters = [msgfilter.compile(t, "amqp-sql") for t in NATIVE + FALLBACK]
    filters.append(property_filter(application_properties={"s": "&p:a"}))  # type: ignore[arg-type]
    for f in filters[: len(NATIVE)]:
        assert ms.explain(f, frame).native, f.text
    for f in filters[len(NATIVE):]:
        assert not ms.explain(f, frame).native, f.text
    # The native filters, in one select (the fallback UDF is the per-message evaluator's
    # own code, checked with every dialect in test_spark_fallback.py).
    run = filters[: len(NATIVE)]
    rows = frame.select(*[ms.to_column(f, frame).alias(f"c{i}") for i, f in
                          enumerate(run)]).collect()
    for index, f in enumerate(run):
        got = [row[index] for row in rows]
        expected = [f.evaluate(_message(r)) for r in ROWS]
        assert got == expected, f.text
