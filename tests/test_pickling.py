"""Filters pickle as dialect + text (+ limits) and unpickle equal, here and in a fresh
interpreter, without `Filter.__reduce__` importing the compiler."""

from __future__ import annotations

import ast
import inspect
import pickle
import subprocess
import sys
import textwrap

import pytest

import msgfilter
from msgfilter import dialects
from msgfilter.engine import compile as engine_compile
from msgfilter.filter import Filter
from msgfilter.limits import Limits

CASES = [
    ("jms", "color = 'red' AND weight > 2.5", None),
    ("rocketmq", "a BETWEEN 1 AND 3 AND s CONTAINS 'x'", None),
    ("activemq", "convert_string_expressions: a + 1 > 2", None),
    ("qpid", "\"my prop\" = NOT a > 1", None),
    ("artemis", "hyphenated_props:my-prop > 2 AND JMSPriority = 4", None),
    ("amqp-sql", "p.subject LIKE 'a%' AND [my key] <> 0x41", None),
    ("rocketmq-tag", "TagA || TagB", None),
    ("pulsar-tag", "anytag: a, b; alltag: eu", None),
    ("jms", "a IN ('x', 'y')", Limits(max_in_items=5, max_depth=30)),
]


def _compiled(dialect: str, text: str, limits: Limits | None) -> Filter:
    return msgfilter.compile(text, dialect, limits=limits)


def test_the_cases_cover_every_dialect() -> None:
    assert {d for d, _, _ in CASES} == set(dialects.names())


@pytest.mark.parametrize(("dialect", "text", "limits"), CASES)
def test_a_filter_unpickles_equal(dialect: str, text: str, limits: Limits | None) -> None:
    f = _compiled(dialect, text, limits)
    back = pickle.loads(pickle.dumps(f))
    assert back == f and back.limits == f.limits and back.dialect == dialect
    assert back is f  # rebuilt through the compile cache


def test_default_limits_pickle_as_a_call_of_compile() -> None:
    f = msgfilter.compile("a = 1")
    assert f.__reduce__() == (engine_compile, ("a = 1", "jms"))
    limited = msgfilter.compile("a = 1", limits=Limits(max_depth=9))
    rebuild, args = limited.__reduce__()
    assert args == ("a = 1", "jms", Limits(max_depth=9))
    assert rebuild(*args) is limited


def test_filters_unpickle_in_a_fresh_interpreter() -> None:
    data = pickle.dumps([_compiled(*case) for case in CASES])
    script = textwrap.dedent(
        """
        import pickle, sys
        filters = pickle.loads(sys.stdin.buffer.read())
        print(sys.modules["msgfilter"].__file__)
        print(repr([(f.dialect, f.unparse(), f.limits.max_in_items) for f in filters]))
        print(pickle.dumps(filters) == pickle.dumps(pickle.loads(pickle.dumps(filters))))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input=data, capture_output=True, check=True,
        env={"PYTHONPATH": ":".join(p for p in sys.path if p)},
    )
    lines = done.stdout.decode().splitlines()
    expected = [(f.dialect, f.unparse(), f.limits.max_in_items)
                for f in (_compiled(*case) for case in CASES)]
    assert lines == [msgfilter.__file__, repr(expected), "True"]


def test_reduce_imports_nothing() -> None:
    source = textwrap.dedent(inspect.getsource(Filter.__reduce__))
    tree = ast.parse(source)
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
