"""docs/pulsar-entries.md runs: every Python block, in order, in one namespace."""

from __future__ import annotations

from pathlib import Path

import pytest

from doc_pages import python_blocks, run_blocks

ROOT = Path(__file__).resolve().parents[2]


def test_the_page_decodes_filters_rebatches_and_acknowledges() -> None:
    text = "\n".join(python_blocks("pulsar-entries.md"))
    for needed in ("decode_batch(", "encode_batch(", "decide_entry(", "rebatch_entry(",
                   "ack_set(", "EntryFormatError", "samples/pulsar-entries/"):
        assert needed in text, needed


def test_every_python_block_of_the_page_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the page reads samples/ from the repository's root
    namespace = run_blocks("pulsar-entries.md")
    assert namespace["compacted"].acknowledge == (1, 2)
    assert namespace["delivered"] and len(namespace["slots"]) == 3
