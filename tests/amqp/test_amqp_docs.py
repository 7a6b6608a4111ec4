"""docs/amqp.md's examples run as they are written."""

from __future__ import annotations

from doc_pages import python_blocks, run_blocks


def test_the_page_has_examples() -> None:
    assert len(python_blocks("amqp.md")) >= 4


def test_the_examples_run() -> None:
    namespace = run_blocks("amqp.md")
    assert "property_filter" in namespace
