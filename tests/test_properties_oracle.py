"""An external oracle: the `activemq` dialect gives what Apache ActiveMQ 5.17's own
selector code gives (../shared/tools/activemq-oracle) on generated valid and invalid
selectors. Needs Java and the oracle's jars; skipped without them."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import msgfilter
from msgfilter import FilterError
from msgfilter.testing import (
    invalid_selectors,
    oracle_answer,
    oracle_case,
    oracle_view,
    property_settings,
    selector_cases,
)

from conformance import SHARED

ORACLE = SHARED / "tools" / "activemq-oracle" / "run-oracle.sh"
NAMES = ["a", "b", "s", "JMSPriority", "JMSType"]

pytestmark = pytest.mark.oracle


def ask(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not ORACLE.exists() or shutil.which("java") is None or shutil.which("javac") is None:
        pytest.skip("the ActiveMQ oracle needs Java and ../shared/tools/activemq-oracle")
    text = "".join(json.dumps(line) + "\n" for line in lines)
    try:
        done = subprocess.run(
            [str(ORACLE)], input=text, capture_output=True, text=True, timeout=300,
            cwd=Path(ORACLE).parent, check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.skip("the ActiveMQ oracle did not answer in time")
    if done.returncode != 0:
        pytest.skip(f"the ActiveMQ oracle did not run: {done.stderr[-300:]}")
    answers = {a["id"]: a for a in map(json.loads, done.stdout.splitlines())}
    return [answers[line["id"]] for line in lines]


def outcome(text: str, message: dict[str, object]) -> bool | str | None:
    try:
        f = msgfilter.compile(text, "activemq")
    except FilterError:
        return "error"
    # ActiveMQ throws where its evaluation fails; the dialect's outcome() says so.
    got = getattr(f, "outcome", f.evaluate)(message)
    return "error" if isinstance(got, msgfilter.EvaluationFailure) else got


def test_activemq_dialect_agrees_with_activemq() -> None:
    cases: list[tuple[str, dict[str, object]]] = []

    @property_settings(2.0)
    @given(st.one_of(
        selector_cases(identifiers=NAMES, types=["long", "double", "string", "boolean"]),
        invalid_selectors(identifiers=NAMES).map(lambda text: (text, [{}])),
    ))
    def collect(case: tuple[str, list[dict[str, object]]]) -> None:
        text, found = case
        for message in found:
            try:
                oracle_case(0, text, message)
            except ValueError:
                continue  # a header name holding a value its header cannot hold
            cases.append((text, message))

    collect()
    try:
        msgfilter.compile("a = 1", "activemq")
    except FilterError:  # pragma: no cover - the dialect exists
        pytest.skip("no activemq dialect")
    answers = ask([oracle_case(i, text, m) for i, (text, m) in enumerate(cases)])
    assert cases
    wrong = [
        (text, oracle_view(message), oracle_answer(answer), outcome(text, oracle_view(message)))
        for (text, message), answer in zip(cases, answers, strict=True)
        if oracle_answer(answer) != outcome(text, oracle_view(message))
    ]
    assert wrong == []
