"""docs/topics.md runs: every Python block, in order, in one namespace."""

from __future__ import annotations

from doc_pages import python_blocks, run_blocks

BLOCKS = python_blocks("topics.md")


def test_the_page_has_its_examples() -> None:
    assert len(BLOCKS) >= 9
    assert any("PatternTopicsTracker(" in block and "resynced" in block for block in BLOCKS)


def test_every_python_block_of_the_page_runs() -> None:
    run_blocks("topics.md")
