"""The dialect registry: every dialect registered once, and everything looks it up there."""

from __future__ import annotations

import dataclasses

import pytest

import msgfilter
import msgfilter.engine
from msgfilter import dialects
from msgfilter.broker import JmsSelectorConfig, expression_dialect, rocketmq_dialect
from msgfilter.broker.errors import FilterConfigError
from msgfilter.cli import _parser
from msgfilter.limits import DEFAULT_LIMITS
from msgfilter.semantics.model import ValueModel

# A text each dialect accepts.
SAMPLES = {
    "jms": "a = 1",
    "rocketmq": "a = 1",
    "activemq": "a = 1",
    "artemis": "a = 1",
    "qpid": "a = 1",
    "rocketmq-tag": "TagA || TagB",
    "pulsar-tag": "anytag: a, b",
}


def test_the_registry_holds_the_eight_dialects() -> None:
    assert dialects.names() == (
        "jms", "rocketmq", "activemq", "artemis", "qpid", "amqp-sql", "rocketmq-tag",
        "pulsar-tag",
    )
    assert dialects.DEFAULT == "jms"
    assert len(set(dialects.names())) == len(dialects.all_dialects())  # each name once
    # AMQP property filters are built from mappings (msgfilter.amqp.property_filter),
    # not from text: their model has no dialect.
    models = [m for m in ValueModel if m is not ValueModel.AMQP_PROPERTY]
    assert [d.model for d in dialects.all_dialects()] == models
    for d in dialects.all_dialects():
        assert dialects.get(d.name) is d
        assert d.summary and "\n" not in d.summary
        # The tag dialects and amqp-sql (RabbitMQ's own grammar) read no selector Grammar.
        no_grammar = (ValueModel.ROCKETMQ_TAG, ValueModel.PULSAR_TAG, ValueModel.AMQP)
        assert (d.grammar is None) == (d.model in no_grammar)
        assert d.sql == (d.model not in (ValueModel.ROCKETMQ_TAG, ValueModel.PULSAR_TAG))
        if d.grammar is not None:
            assert d.grammar.name == d.name


def test_records_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        dialects.get("jms").name = "other"  # type: ignore[misc]


@pytest.mark.parametrize("name", list(SAMPLES))
def test_each_factory_builds_a_filter_of_its_dialect(name: str) -> None:
    d = dialects.get(name)
    f = d.build(SAMPLES[name], DEFAULT_LIMITS)
    assert (f.dialect, f.model) == (d.name, d.model)
    assert f == msgfilter.compile(SAMPLES[name], name)


def test_unknown_dialect_names_the_known_ones() -> None:
    with pytest.raises(msgfilter.FilterError) as error:
        dialects.get("sql")
    assert str(error.value) == (
        "unknown dialect 'sql' (known: activemq, amqp-sql, artemis, jms, pulsar-tag, qpid, "
        "rocketmq, rocketmq-tag)"
    )
    with pytest.raises(msgfilter.FilterError, match=r"unknown dialect 'sql' \(known: act"):
        msgfilter.compile("a = 1", "sql")


def test_the_registry_is_the_one_name_for_dialects() -> None:
    # engine.DIALECTS and SelectorFilter.sql_dialect, the 0.1.0 pre-release names, are gone.
    assert not hasattr(msgfilter.engine, "DIALECTS")
    assert not hasattr(msgfilter.compile("a = 1"), "sql_dialect")


def test_the_command_line_offers_every_dialect() -> None:
    parser = _parser()
    check = parser._subparsers._group_actions[0].choices["check"]  # type: ignore[union-attr]
    option = next(a for a in check._actions if "--dialect" in a.option_strings)
    assert sorted(option.choices) == sorted(dialects.names())
    assert option.default == "jms"
    for d in dialects.all_dialects():
        assert d.summary in option.help


def test_the_broker_names_dialects_through_the_registry() -> None:
    for name in dialects.names():
        assert expression_dialect(name) == name
    assert expression_dialect("Sql92") == "jms"
    known = "known: SQL92, activemq, amqp-sql, artemis, jms"
    with pytest.raises(msgfilter.FilterError, match=known):
        expression_dialect("sql")
    assert JmsSelectorConfig(dialect="rocketmq").dialect == "rocketmq"
    for refused in ("activemq", "pulsar-tag", "nope"):
        with pytest.raises(FilterConfigError, match=r"not a selector dialect \(jms, rocketmq\)"):
            JmsSelectorConfig(dialect=refused)


def test_rocketmq_expression_types_name_registered_dialects() -> None:
    for expression_type in (None, "", "TAG", "SQL92"):
        assert rocketmq_dialect(expression_type) in dialects.names()
    with pytest.raises(msgfilter.FilterError, match="TAG or SQL92"):
        rocketmq_dialect("tag")
