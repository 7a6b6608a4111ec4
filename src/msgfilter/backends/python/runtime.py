"""What generated code runs against: the helpers it may call by name, and `build`, which
executes our generated source (never user text) and binds it to its constants."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from cachetools import LRUCache

from ...message import as_mapping, needs_mapping
from ...semantics import activemq as amq
from ...semantics import amqp as mq
from ...semantics import artemis as art
from ...semantics import qpid
from ...semantics import rocketmq as rq
from ...semantics import values as v

#: The names generated source calls, and what they are.
RUNTIME: dict[str, Any] = {
    "_as_mapping": as_mapping,
    "_needs_mapping": needs_mapping,
    "_to_double": v.to_double,
    "_cond": v.as_condition,
    "_neg": v.negate,
    "_utf16": v.utf16_key,
    "_eq": v.cmp_eq, "_ne": v.cmp_ne, "_lt": v.cmp_lt,
    "_le": v.cmp_le, "_gt": v.cmp_gt, "_ge": v.cmp_ge,
    "_add": v.add, "_sub": v.sub, "_mul": v.mul, "_div": v.div,
    "_rprop": rq.prop, "_rin": rq.in_list, "_rtest": rq.string_test, "_rneg": rq.negate,
    "_req": rq.eq, "_rne": rq.ne, "_rlt": rq.lt, "_rle": rq.le, "_rgt": rq.gt, "_rge": rq.ge,
    "_aprop": amq.prop, "_acond": amq.as_condition, "_aeq": amq.eq, "_ane": amq.ne,
    "_aord": amq.ordering, "_aarith": amq.arith, "_aneg": amq.negate, "_ain": amq.in_list,
    "_alike": amq.like, "_acall": amq.call, "_failed": amq.failure,
    "_qhdr": qpid.header, "_qeq": qpid.eq, "_qord": qpid.ordering, "_qarith": qpid.arith,
    "_qneg": qpid.negate,
    "_arprop": art.prop,
    "_mqapp": mq.app, "_mqfield": mq.field, "_mqcond": mq.condition, "_mqnot": mq.not3,
    "_mqcmp": mq.compare, "_mqarith": mq.arith, "_mqneg": mq.negate, "_mqutc": mq.utc,
    "_mqmember": mq.member, "_mqfailed": mq.failure, "_mqraw": mq.raw_app, "_mqv": mq.value_of,
}


#: Distinct generated sources kept compiled. Python's compiler costs about 10 µs per
#: boolean operator, so compiling is most of what a new shape costs; selectors of
#: different shapes (other identifiers, the same structure) often generate the same
#: source, since identifiers and literals are constants bound afterwards.
BINDERS_KEPT = 4096
_binders: LRUCache[str, Callable[..., Any]] = LRUCache(maxsize=BINDERS_KEPT)
_lock = threading.Lock()
#: The globals every generated function reads: the runtime's names, shared (generated
#: code defines nothing global; `_bind` lands in a namespace of its own).
_GLOBALS: dict[str, Any] = dict(RUNTIME)


def binder(source: str) -> Callable[..., Any]:
    """The `_bind` function generated `source` defines (compiled once per distinct
    source): called with the constants, it returns the evaluator."""
    with _lock:
        found = _binders.get(source)
    if found is None:
        local: dict[str, Any] = {}
        # Our text only: no byte of a user's selector is in it.
        exec(compile(source, "<msgfilter>", "exec"), _GLOBALS, local)
        found = local["_bind"]
        with _lock:
            _binders[source] = found
    return found


def build(source: str, consts: tuple[object, ...]) -> Any:
    """The function that generated `source` defines, bound to its constants."""
    return binder(source)(*consts)


def purge() -> None:
    """Forget every compiled source: the next filter of each pays Python's `compile`
    again (what a cold compile costs; `benchmarks/bench_compile_workloads.py`)."""
    with _lock:
        _binders.clear()
