"""syntax/unparse.py: canonical text that compiles back to an equal tree."""

from __future__ import annotations

import pytest

import msgfilter


@pytest.mark.parametrize(
    ("dialect", "text", "canonical"),
    [
        ("jms", "a=1 and (b='x' or c is null)", "a = 1 AND (b = 'x' OR c IS NULL)"),
        ("jms", "s = 'it''s'", "s = 'it''s'"),
        ("jms", "a = -5 AND b = - -2.5", "a = -5 AND b = 2.5"),
        ("jms", "NOT (a = 1)", "NOT a = 1"),
        ("jms", "(a + b) * c > 1", "(a + b) * c > 1"),
        ("jms", "a LIKE 'x!_%' ESCAPE '!'", "a LIKE 'x!_%' ESCAPE '!'"),
        ("rocketmq", "a between 10 and -5", "a BETWEEN 10 AND -5"),
        ("rocketmq", "a contains 'x'", "a CONTAINS 'x'"),
        ("activemq", "not a = 1", "NOT a = 1"),
    ],
)
def test_canonical_text(dialect: str, text: str, canonical: str) -> None:
    f = msgfilter.compile(text, dialect)
    assert f.unparse() == canonical
    assert msgfilter.compile(canonical, dialect) == f


@pytest.mark.parametrize("dialect", ["jms", "rocketmq", "activemq"])
def test_round_trip_keeps_the_sign_as_the_dialect_reads_it(dialect: str) -> None:
    f = msgfilter.compile("a > -2147483648 OR b = -(-3)", dialect)
    assert msgfilter.compile(f.unparse(), dialect) == f
