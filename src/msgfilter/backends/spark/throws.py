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


def combine(
    conjunction: bool, operands: Sequence[V], condition: Callable[[V], Column]
) -> tuple[Column, Column | None]:
    """AND (True) or OR (False) of `operands` as conditions, left to right, and the rows
    where the combination threw: an operand is evaluated, and its throw counts, only
    while no earlier operand decided (none was FALSE for AND, TRUE for OR)."""
    deciding = not conjunction
    joined = operator.and_ if conjunction else operator.or_
    first = operands[0]
    result, error = condition(first), first.error
    for operand in operands[1:]:
        if operand.error is not None:
            undecided = ~F.coalesce(result == F.lit(deciding), F.lit(False))
            error = or_errors(error, undecided & operand.error)
        result = joined(result, condition(operand))
    return result, error


def finish(result: Column, error: Column | None) -> Column:
    """The answer: UNKNOWN (NULL) wherever the evaluation threw."""
    if error is None:
        return result
    return F.when(F.coalesce(error, F.lit(False)), null_bool()).otherwise(result)
