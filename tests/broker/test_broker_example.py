"""docs/broker.md runs: every Python block, in order, in one namespace.

The worked dispatcher example is the last block; running the page from here keeps the
documentation and the code the same thing.
"""

from __future__ import annotations

from doc_pages import python_blocks, run_blocks

BLOCKS = python_blocks("broker.md")


def test_the_page_has_the_worked_example() -> None:
    assert len(BLOCKS) >= 6
    last = BLOCKS[-1]
    assert "FilterChain([" in last and "rebatch(" in last and "for entry in entries" in last


def test_every_python_block_of_the_page_runs() -> None:
    namespace = run_blocks("broker.md")
    # The dispatcher's own results, checked again here so a weakened doc assert shows up.
    delivered = namespace["delivered"]
    assert isinstance(delivered, list) and [d[1:] for d in delivered] == [(0, "250"), (1, "300")]
    acknowledged = namespace["acknowledged"]
    assert isinstance(acknowledged, list) and len(acknowledged) == 3
