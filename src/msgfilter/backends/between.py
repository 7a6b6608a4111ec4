"""BETWEEN as comparisons (J33), the one rule every backend lowers it by: `e BETWEEN lo AND
hi` is `e >= lo AND e <= hi`, `e NOT BETWEEN lo AND hi` is `e < lo OR e > hi`, with `e`
evaluated once. Each backend expresses it through its own comparison and AND / OR."""

from __future__ import annotations

from typing import NamedTuple

from ..syntax.nodes import CompareOp


class BetweenRule(NamedTuple):
    #: The comparisons are joined by AND (else by OR).
    conjunction: bool
    #: `e low_op lo`.
    low_op: CompareOp
    #: `e high_op hi`.
    high_op: CompareOp


INSIDE = BetweenRule(True, ">=", "<=")
OUTSIDE = BetweenRule(False, "<", ">")


def between_rule(negated: bool) -> BetweenRule:
    """The comparisons of `[NOT] BETWEEN`."""
    return OUTSIDE if negated else INSIDE
