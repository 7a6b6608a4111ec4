"""Signed literals: unary minus folded into the numeric literal it stands before.

In JMS (J10, J27) `-5` is a signed literal and `-9223372036854775808` is Long.MIN_VALUE.
Whether a sign folds is a value rule of the dialect, not of the grammar: RocketMQ and
ActiveMQ keep a runtime negation, so their literal checks see `5`, not `-5`. The builder
therefore always builds `Negate` nodes, and this pass folds them for the dialects that
say so, before the static checks run.
"""

from __future__ import annotations

import dataclasses
from typing import cast

from ..java import wrap
from ..syntax import nodes as n


def fold_signs(tree: n.Expr) -> n.Expr:
    """`tree` with every run of unary minus over a numeric literal folded into the
    literal (Java long arithmetic wraps: `- -9223372036854775808` is still the minimum).
    Returns `tree` itself when nothing folds."""
    return _fold(tree)


def _fold(node: n.Expr) -> n.Expr:
    if isinstance(node, n.Negate):
        signs, inner = 1, node.operand
        while isinstance(inner, n.Negate):  # a loop: sign runs may be long, not deep
            signs, inner = signs + 1, inner.operand
        if isinstance(inner, n.ExactLit):
            value = -inner.value if signs % 2 else inner.value
            return n.ExactLit(wrap(value), span=node.span)
        if isinstance(inner, n.ApproxLit):
            return n.ApproxLit(-inner.value if signs % 2 else inner.value, span=node.span)
    changes: dict[str, object] = {}
    for name in _field_names(type(node)):
        value = getattr(node, name)
        if isinstance(value, n.Node):
            folded = _fold(cast(n.Expr, value))
            if folded is not value:
                changes[name] = folded
        elif isinstance(value, tuple) and value and isinstance(value[0], n.Node):
            items = tuple(_fold(cast(n.Expr, item)) for item in value)
            if any(a is not b for a, b in zip(items, value, strict=True)):
                changes[name] = items
    return dataclasses.replace(node, **changes) if changes else node  # type: ignore[arg-type]


_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    # dataclasses.fields() builds its answer on every call: most of this pass's cost.
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(
            f.name for f in dataclasses.fields(cls) if f.name not in ("span", "depth")
        )
    return names
