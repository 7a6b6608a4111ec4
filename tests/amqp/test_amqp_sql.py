"""amqp-sql as a dialect: the registry, the command line, canonical text, limits, the
index and the row-by-row Arrow path."""

from __future__ import annotations

import io
import pickle
from pathlib import Path

import pytest

import msgfilter
import msgfilter.cli
from msgfilter import FilterLimitError, FilterSyntaxError, Message, SubscriptionIndex
from msgfilter.amqp import AmqpSqlFilter, property_filter

from .test_oracle import DATA


def test_compile_goes_through_the_registry_and_the_cache() -> None:
    f = msgfilter.compile("a = 1", "amqp-sql")
    assert isinstance(f, AmqpSqlFilter) and f.dialect == "amqp-sql"
    assert msgfilter.compile("a = 1", "amqp-sql") is f
    assert pickle.loads(pickle.dumps(f)) is f
    assert "departures from the JMS specification" in f.explain()


@pytest.mark.parametrize("text", sorted({t for t, _, a in DATA["cases"] if a != "error"})[::7])
def test_canonical_text_compiles_to_an_equal_filter(text: str) -> None:
    f = msgfilter.compile(text, "amqp-sql")
    assert msgfilter.compile(f.unparse(), "amqp-sql") == f


def test_rabbitmqs_limits() -> None:
    with pytest.raises(FilterLimitError):
        msgfilter.compile("s = '" + "x" * 4091 + "'", "amqp-sql")
    with pytest.raises(FilterLimitError):
        msgfilter.compile(" OR ".join(["a = 1"] * 51), "amqp-sql")
    # The deepest nesting 200 tokens allow compiles and evaluates.
    assert msgfilter.compile("(" * 98 + "a" + ")" * 98 + " = 5", "amqp-sql").matches({"a": 5})
    assert msgfilter.compile("NOT " * 198 + "a", "amqp-sql").matches({"a": True})
    assert msgfilter.compile(" + ".join(["a"] * 99) + " = 99", "amqp-sql").matches({"a": 1})


def test_errors_point_at_the_fault() -> None:
    with pytest.raises(FilterSyntaxError) as error:
        msgfilter.compile("a = 1 AND b LIKE 'x!' ESCAPE '!'", "amqp-sql")
    assert error.value.offset == 17
    with pytest.raises(FilterSyntaxError) as error:
        msgfilter.compile("p.nope = 1", "amqp-sql")
    assert error.value.offset == 0 and "p.nope" in error.value.message


def test_the_command_line(tmp_path: Path) -> None:
    messages = tmp_path / "m.jsonl"
    messages.write_text('{"a": 2}\n{"a": 1}\n{}\n', encoding="utf-8")
    out = io.StringIO()
    status = msgfilter.cli.main(["eval", "-d", "amqp-sql", "-m", str(messages), "a != 1"], out)
    assert status == 0
    assert out.getvalue().split()[:6] == ["TRUE", "line", "1", "FALSE", "line", "2"]
    assert msgfilter.cli.main(["check", "-d", "amqp-sql", "a and b"], io.StringIO()) == 2


def test_the_index_verifies_amqp_filters() -> None:
    index = SubscriptionIndex()
    index.add("big", "a > 'B'", "amqp-sql")
    index.add("num", "a = 1.0", "amqp-sql")
    index.add("subject", "p.subject LIKE 'x%'", "amqp-sql")
    index.add_filter("prop", property_filter({"subject": "&s:y"}))
    assert sorted(index.match({"a": "a"})) == ["big"]
    assert sorted(index.match({"a": 1})) == ["num"]
    assert sorted(index.match(Message({}, {"subject": "xy"}))) == ["prop", "subject"]


def test_arrow_evaluates_row_by_row() -> None:
    pa = pytest.importorskip("pyarrow")
    import msgfilter.arrow

    table = pa.table({"a": [1, 2, None], "s": ["x", "B", "a"]})
    f = msgfilter.compile("a = 1.0 OR s > 'B'", "amqp-sql")
    got = msgfilter.arrow.evaluate(f, table).to_pylist()
    assert got == [f.evaluate(m) for m in msgfilter.arrow.messages(table)] == [True, False, True]


def test_python_values_as_rabbitmq_holds_them() -> None:
    import uuid
    from datetime import UTC, datetime

    def answer(text: str, value: object) -> bool | None:
        f = msgfilter.compile(text, "amqp-sql")
        got = f.evaluate({"v": value})
        # The inline comparison and the general one agree.
        assert f.matches({"v": value}) is (got is True)
        assert f.evaluate(Message({"v": value})) is got
        return got

    stamp = datetime(2024, 1, 1, tzinfo=UTC)
    assert answer("v = 1704067200000", stamp) is True
    assert answer("v > 0", datetime(2024, 1, 1)) is None      # naive: no instant
    assert answer("v > 0", float("nan")) is None               # no AMQP NaN
    assert answer("v = 1.0E308 * 10.0", float("inf")) is None
    assert answer("v = 0x00000000000000000000000000000001", uuid.UUID(int=1)) is True
    assert answer("v = 'ab'", bytearray(b"ab")) is True
    assert answer("v = 1", True) is False and answer("v = TRUE", 1) is False
    assert answer("v > 'B'", b"a") is True and answer("v LIKE 'a%'", b"ab") is True
    assert answer("v LIKE 'a_'", b"a\xff") is None             # regex on no UTF-8
    assert answer("v = 'x'", ["x"]) is None                    # no complex values


def test_the_declared_node_kinds_are_what_the_parser_builds() -> None:
    from msgfilter import dialects
    from msgfilter.syntax import nodes as n
    from msgfilter.syntax.amqp_parser import NODE_KINDS

    text = (
        "NOT a = 'x' AND b <> 1.5 OR -c * 2 > 1 AND d IN (0x41, TRUE) AND e LIKE 'x%'"
        " AND f IS NULL AND p.subject = UTC()"
    )
    found, stack = set(), [msgfilter.compile(text, "amqp-sql").tree]  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        found.add(type(node))
        stack.extend(n.children(node))
    assert found == NODE_KINDS
    assert dialects.node_kinds(dialects.get("amqp-sql").model) == NODE_KINDS
