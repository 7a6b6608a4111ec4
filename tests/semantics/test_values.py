"""semantics/values.py: the jms dialect's run-time value rules (J21-J32), total functions."""

from __future__ import annotations

import math

import pytest

from msgfilter.semantics import values as v

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


@pytest.mark.parametrize(
    ("op", "left", "right", "expected"),
    [
        ("=", 5, 5.0, True),  # J25: promotion to double
        ("<", 1, 1.5, True),
        ("=", "a", "a", True),
        ("<", "\uffff", "😀", False),  # UTF-16 order: a surrogate sorts below U+FFFF
        ("=", True, True, True),
        ("=", True, 1, False),  # booleans are not numbers
        ("=", "5", 5, False),  # unlike types are FALSE (J26) ...
        ("<>", "5", 5, False),  # ... for <> too
        ("=", None, 5, None),  # NULL makes UNKNOWN (J24)
        ("<", 5, None, None),
        ("=", math.nan, math.nan, False),
        ("=", 0.0, -0.0, True),
        ("=", 2**53 + 1, float(2**53), True),  # the long widens to the nearest double
    ],
)
def test_compare(op: str, left: object, right: object, expected: bool | None) -> None:
    assert v.compare(op, left, right) is expected


def test_long_arithmetic_wraps_and_division_truncates() -> None:
    assert v.add(LONG_MAX, 1) == LONG_MIN
    assert v.sub(LONG_MIN, 1) == LONG_MAX
    assert v.mul(2**62, 4) == 0
    assert v.div(-7, 2) == -3
    assert v.div(LONG_MIN, -1) == LONG_MIN
    assert v.div(1, 0) is None  # J30: long division by zero is NULL


def test_double_arithmetic_is_ieee() -> None:
    assert v.div(1.0, 0) == math.inf
    assert math.isnan(v.div(0.0, 0))
    assert v.add(1, 0.5) == 1.5
    assert v.add("a", 1) == "a1"  # J31: concatenation with the number's Java text
    assert v.add("a", 0.5) == "a0.5"


def test_null_and_unlike_operands_give_null() -> None:
    assert v.add(None, 1) is None
    assert v.mul(True, 2) is None
    assert v.negate("x") is None
    assert v.negate(LONG_MIN) == LONG_MIN
    assert v.negate(0.0) == 0.0 and math.copysign(1, v.negate(0.0)) == -1


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, True), (False, False), (None, None), (1, False), ("true", False)],
)
def test_as_condition(value: object, expected: bool | None) -> None:
    assert v.as_condition(value) is expected


@pytest.mark.parametrize(
    ("value", "text"),
    [(1, "1"), (1.0, "1.0"), (1e21, "1.0E21"), (0.001, "0.001"), (1e-4, "1.0E-4"),
     (math.nan, "NaN"), (-math.inf, "-Infinity"), (True, "true"), ("x", "x")],
)
def test_java_text(value: object, text: str) -> None:
    assert v.java_text(value) == text


def test_wrap_and_widening() -> None:
    assert v.wrap(2**63) == LONG_MIN
    assert v.to_double(10**400) == math.inf
