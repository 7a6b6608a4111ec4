"""`MapEntries.lookup` is `pc.map_lookup(column, key, "last")` for every key."""

from __future__ import annotations

import random

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from msgfilter.backends.arrow.map_entries import MapEntries

KEYS = ("a", "b", "c", "é", "", "a1", "zz")


def _rows(rnd: random.Random, count: int) -> list[list[tuple[str, object]] | None]:
    rows: list[list[tuple[str, object]] | None] = []
    for _ in range(count):
        if rnd.random() < 0.1:
            rows.append(None)  # a null map
            continue
        # Repeated keys in one row (the last wins), null items, empty maps.
        rows.append([(rnd.choice(KEYS), rnd.choice((None, rnd.randrange(-3, 9))))
                     for _ in range(rnd.randrange(0, 5))])
    return rows


@pytest.mark.parametrize("seed", range(6))
def test_lookup_equals_map_lookup_last(seed: int) -> None:
    rnd = random.Random(seed)
    dtype = pa.map_(pa.large_string() if seed % 2 else pa.string(), pa.int64())
    whole = pa.array(_rows(rnd, 300), dtype)
    columns: list[pa.Array | pa.ChunkedArray] = [
        whole,
        whole.slice(37, 150),                                    # offsets into the entries
        pa.chunked_array([whole.slice(0, 120), whole.slice(120)]),
        pa.chunked_array([whole.slice(5, 40)]),
        pa.array([], dtype),
    ]
    for column in columns:
        entries = MapEntries(column)
        for key in (*KEYS, "absent"):
            want = pc.map_lookup(column, pa.scalar(key, dtype.key_type), "last")
            if isinstance(want, pa.ChunkedArray):
                want = want.combine_chunks()
            got = entries.lookup(key)
            assert got.type == want.type
            assert got.to_pylist() == want.to_pylist(), (key, len(column))


def test_lookup_of_union_items() -> None:
    # Typed properties arrive as a dense union of the value kinds.
    items = pa.UnionArray.from_dense(
        pa.array([0, 1, 0, 1], pa.int8()), pa.array([0, 0, 1, 1], pa.int32()),
        [pa.array([1, 2]), pa.array(["x", "y"])])
    column = pa.MapArray.from_arrays(
        pa.array([0, 2, 2, 4], pa.int32()), pa.array(["a", "b", "a", "a"]), items)
    entries = MapEntries(column)
    for key in ("a", "b", "c"):
        want = pc.map_lookup(column, pa.scalar(key), "last")
        assert entries.lookup(key).to_pylist() == want.to_pylist()
    assert entries.lookup("a").to_pylist() == [1, None, "y"]
