"""Evaluation that can throw, as Columns: the value models whose broker aborts a
message's evaluation on an exception (RocketMQ's failed conversions, ActiveMQ's Java
exceptions) carry, beside each lowered value, an `error` Column that is TRUE in the rows
where computing it threw (`V.error`; None: it never does). A throw makes the filter's
answer UNKNOWN for that row, as the per-message backend's `evaluate` gives, except where
AND / OR had already decided, left to right, before reaching the operand that threw.
The Arrow backend's rocketmq lowering keeps the same account with kernels."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from functools import reduce

from pyspark.sql import Column
from pyspark.sql import functions as F

from .values import V, null_bool


def or_errors(*errors: Column | None) -> Column | None:
    """The rows where any of `errors` threw (None: none can)."""
    found = [e for e in errors if e is not None]
    return reduce(operator.or_, found) if found else None


def unknown_where(error: Column, value: Column) -> Column:
    """`value`, NULL (UNKNOWN) where `error` is TRUE: `CASE WHEN error THEN NULL ELSE value
    END` written with AND and OR, `(value OR n0) AND n1` with n0 / n1 NULL where `error`
    is TRUE, else FALSE / TRUE. Spark's subexpression elimination counts what a CASE
    branch reads as read only sometimes and shares it with nothing, while both sides of
    an AND / OR count: a conversion read by the value and by its error is then computed
    once per row, not once per use."""
    n0 = F.when(error, null_bool()).otherwise(F.lit(False))
    return (value | n0) & ~n0  # NOT NULL is NULL, NOT FALSE is TRUE: n1, fewer py4j calls


def combine(
    conjunction: bool, operands: Sequence[V], condition: Callable[[V], Column]
) -> tuple[Column, Column | None]:
    """AND (True) or OR (False) of `operands` as conditions, left to right, and the rows
    where the combination threw: an operand is evaluated, and its throw counts, only
    while no earlier operand decided (none was FALSE for AND, TRUE for OR).

    The result is NULL wherever the error is TRUE (a V built from it is `absorbed`), and
    reads each operand once: it is built from the right, each operand that can throw
    guarding the rest, `CASE WHEN error THEN NULL ELSE operand AND rest END`. That is the
    rule because an UNKNOWN operand and a throw both leave NULL unless a later operand
    decides, and a throw is already NULL, the rest unread, before any later one can."""
    deciding = not conjunction
    joined = operator.and_ if conjunction else operator.or_
    last = operands[-1]
    result = condition(last)
    if last.error is not None and not last.absorbed:
        result = unknown_where(last.error, result)
    for operand in reversed(operands[:-1]):
        result = joined(condition(operand), result)
        if operand.error is not None:
            result = unknown_where(operand.error, result)
    # The rows where it threw, for an enclosing combination (throws count left to right).
    first = operands[0]
    running, error = condition(first), first.error
    for operand in operands[1:]:
        if operand.error is not None:
            undecided = ~F.coalesce(running == F.lit(deciding), F.lit(False))
            error = or_errors(error, undecided & operand.error)
        running = joined(running, condition(operand))
    return result, error


def finish(result: Column, error: Column | None, absorbed: bool = False) -> Column:
    """The answer: UNKNOWN (NULL) wherever the evaluation threw (`result` already is
    where it is `absorbed`)."""
    if error is None or absorbed:
        return result
    return unknown_where(error, result)
