"""Which RocketMQ comparisons can abort an evaluation before an exact clause decides it.

RocketMQ converts a property's string to the type of the literal it meets
(`Integer/Long/Double.valueOf`) and throws where the string does not convert: the whole
evaluation fails and the message is not delivered, even when another OR branch is TRUE.
Its OR evaluates left to right and stops at the first TRUE operand, its AND stops at the
first FALSE one (`LogicExpression.createOR` / `createAND`, apache/rocketmq
8fc57f1468d182eea11c01e089c0250d647dc5f3). So a hit on an exact clause of an OR proves
the filter TRUE when no comparison the broker evaluates on the way to that TRUE throws
for this message. `guard` names those comparisons for a whole filter, as the names of the
message values whose conversion must not fail (`bounds`' marks: `AS_INT`, `AS_LONG`,
`AS_DOUBLE` and the identifier, or `PRESENCE`: the value must be absent); the index keeps
a hit exact for a message only when none of them fails (`ClauseStore.candidates`) and
verifies it otherwise.

An exact clause is one OR branch whose every conjunct is keyed exactly, so a hit means
each of them was TRUE, none threw. For `A OR B OR C` a hit through `C` has evaluated `A`
and `B` whole (any of their comparisons may have thrown), a hit through `A` nothing but
`A`. The guard is one per filter (a look-up does not say which clause hit), and naming
too much is safe (a hit is then verified), so: guard(OR) = every comparison of each
operand but the last, and guard(last); guard(AND) = the guards of its operands (an
operand that is an OR distributed into branches); any other node: nothing (it is a
conjunct of the hit, TRUE).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..syntax import nodes as n
from .bounds import AS_DOUBLE, AS_INT, AS_LONG, PRESENCE

_INT32 = 2**31 - 1
_ORDERINGS = ("<", "<=", ">", ">=")
_LITERALS = (n.StringLit, n.ExactLit, n.ApproxLit, n.BoolLit, n.NullLit)


def guard(tree: n.Expr) -> frozenset[str] | None:
    """The marked names (see the module's doc) whose failed conversion may abort the
    evaluation of `tree` before an exact clause of its plan is TRUE; None when something
    there may throw that no message value's name describes (a comparison of literals)."""
    if isinstance(tree, n.Or):
        names: set[str] = set()
        for operand in tree.operands[:-1]:
            found = throws(operand)
            if found is None:
                return None
            names |= found
        last = guard(tree.operands[-1])
        return None if last is None else frozenset(names | last)
    if isinstance(tree, n.And):
        names = set()
        for operand in tree.operands:
            inner = guard(operand)
            if inner is None:
                return None
            names |= inner
        return frozenset(names)
    # A conjunct on an exact hit's way is one its clause keys exactly, so it was TRUE:
    # it did not throw. (A conjunct no clause keys exactly is on no exact hit's way.)
    return frozenset()


def throws(node: n.Expr) -> set[str] | None:
    """The marked names of every comparison in `node` that may throw (None: one may
    throw whatever the message holds)."""
    names: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, n.And | n.Or):
            stack.extend(current.operands)
        elif isinstance(current, n.Not):
            stack.append(current.operand)
        elif isinstance(current, n.Compare):
            found = _compare(current.op, current.left, current.right)
            if found is None:
                return None
            names |= found
        elif isinstance(current, n.Between):
            # BETWEEN is `>=` AND `<=` (NOT BETWEEN `<` OR `>`): both may be evaluated.
            low = _compare(">=", current.operand, current.low)
            high = _compare("<=", current.operand, current.high)
            if low is None or high is None:
                return None
            names |= low | high
        elif isinstance(current, n.In | n.StringTest | n.IsNull):
            # IN and the string tests read the string as it is; IS NULL converts nothing.
            if not _quiet(current.operand):
                return None
        elif not isinstance(current, n.Ident | n.BoolLit | n.NullLit):
            # (A bare property is FALSE for any string, NULL when absent: it converts
            # nothing, as the broker's answers show.)
            return None
    return names


def _quiet(operand: n.Expr) -> bool:
    """Whether reading `operand` as a value converts nothing (a property, `-property`,
    which is NULL for a string, or a literal)."""
    if isinstance(operand, n.Negate):
        operand = operand.operand
    return isinstance(operand, (n.Ident, *_LITERALS))


def literal_classes(values: Sequence[object]) -> tuple[object, ...]:
    """What of a filter's literal values its guard depends on beyond its shape (which
    holds the literals' kinds, signs and identifiers): whether each integer lies within
    +-(2**31-1), which picks `Integer.valueOf` over `Long.valueOf`."""
    return tuple(abs(v) <= _INT32 if type(v) is int else None for v in values)


def literal_mark(node: n.Expr) -> str | None:
    """How a property meeting this numeric literal is converted (the mark of
    `bounds`): `Integer.valueOf` for an integer within +-(2**31-1), else `Long.valueOf`;
    `Double.valueOf` for a double (`semantics.rocketmq`); None: not a numeric literal."""
    negate = isinstance(node, n.Negate)
    if isinstance(node, n.Negate):
        node = node.operand
    if isinstance(node, n.ExactLit):
        value = -node.value if negate else node.value
        return AS_INT if -_INT32 <= value <= _INT32 else AS_LONG
    if isinstance(node, n.ApproxLit):
        return AS_DOUBLE
    return None


def _compare(op: str, left: n.Expr, right: n.Expr) -> set[str] | None:
    """The names whose conversion `left op right` may fail on (None: it may throw
    whatever the message holds)."""
    names: set[str] = set()
    idents = 0
    for side, other, first in ((left, right, True), (right, left, False)):
        if isinstance(side, n.Ident):
            idents += 1
            mark = literal_mark(other)
            if mark is not None:
                # The string converted to the literal's type (either side first).
                names.add(mark + side.name)
            elif op in _ORDERINGS:
                # Two strings are ordered as doubles; a Boolean, NULL or other value
                # meeting a string: named by presence, which covers every case.
                names.add(PRESENCE + side.name)
            elif not first and isinstance(other, n.BoolLit):
                # `TRUE = prop`: the broker casts the Boolean to String and throws.
                names.add(PRESENCE + side.name)
        elif not _quiet(side):
            return None
    # Literals alone may throw for every message (`5 = 'a'`): not a name's doing.
    return names if idents else None


__all__ = ["guard", "literal_classes", "literal_mark", "throws"]
