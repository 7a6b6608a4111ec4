"""Clauses made of numeric bounds, tested against one message in a few numpy calls.

A `RangeTable` holds clauses that no hashed key narrows (or too many of them under one
key): each is an inclusive interval in double space on one or more identifiers. A
message must be tested against all of them, and the naive loop is linear in the
clauses. The table cuts each identifier's line into at most `MAX_CELLS` cells at the
quantiles of the clauses' own thresholds, and keeps, per cell, a bitmap of the clauses
whose interval meets that cell (a clause that does not bound the identifier meets every
cell; a message without the identifier meets only those). A message's candidates are
the AND of one bitmap per identifier: a handful of word-wise ANDs in C whatever the
number of clauses. A second bitmap per cell holds the clauses whose interval covers
the whole cell: the AND of those is the candidates proven without a look at their
bounds, so only the clauses with a threshold in the message's cells are tested against
their exact bounds. A wide table (more than `FEW_WORDS` words of clauses) reads its
candidates out with numpy and tests them all there: a read of one bit out of a wide
Python int costs a pass over all of it. Clauses added since the
bitmaps were made are tested beside them, and those removed are masked out, until a
rebuild is worth it.

(Why not a sorted list per identifier, the textbook interval index: each identifier's
list admits many clauses that another identifier then rejects, and intersecting those
sets in Python is what the bitmaps avoid.)
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

#: At most this many cut points per identifier (cells are one more): the bitmaps cost
#: 2 x (cells / 8) bytes per clause and identifier.
MAX_CELLS = 64
#: A table of more than this many 64-bit words of clauses reads its candidates out and
#: tests them with numpy: below, Python's reads of a bitmap and tests of a few rows cost
#: less than numpy's calls; above, each read of a bit costs a pass over a wide int.
FEW_WORDS = 256
#: A table of more clauses than this uses the bitmaps; up to it, a Python loop (numpy's
#: calls cost more).
VECTOR_FROM = 48

#: A clause: its entry number, whether it is exact, its bounds by identifier.
RangeMember = tuple[int, bool, dict[str, tuple[float, float]]]
#: A message's numbers by identifier (None: absent, or not a number the bounds admit;
#: never NaN, which lies in no interval).
Numbers = Mapping[str, float | None]


class RangeTable:
    """Clauses of numeric bounds (see the module), kept in step with every change."""

    def __init__(self) -> None:
        self.members: dict[int, RangeMember] = {}
        self.uses: Counter[str] = Counter()
        self._grid: _Grid | None = None
        self.pending: dict[int, RangeMember] = {}
        #: Clauses removed since the bitmaps were made (masked out of them).
        self.removed = 0

    def __bool__(self) -> bool:
        return bool(self.members)

    def add(self, member_id: int, member: RangeMember) -> None:
        self.members[member_id] = member
        for name in member[2]:
            self.uses[name] += 1
        if self._grid is not None:
            self.pending[member_id] = member

    def remove(self, member_id: int, member: RangeMember) -> None:
        del self.members[member_id]
        for name in member[2]:
            self.uses[name] -= 1
            if not self.uses[name]:
                del self.uses[name]
        if self.pending.pop(member_id, None) is None and self._grid is not None:
            self.removed += 1
            self._grid.mask(member_id)

    def hits(self, numbers: Numbers, decided: set[int], verify: set[int]) -> None:
        """Add the entries of the clauses `numbers` satisfy to `decided` (exact clauses)
        or `verify`."""
        members = self.members
        if len(members) <= VECTOR_FROM:
            loop_named(members.values(), numbers, decided, verify)
            return
        grid = self._grid
        if grid is None or len(self.pending) + self.removed > max(
                16, len(members) // 8):
            grid = self._grid = _Grid(members, sorted(self.uses))
            self.pending.clear()
            self.removed = 0
        grid.hits(numbers, decided, verify)
        if self.pending:
            loop_named(self.pending.values(), numbers, decided, verify)


def loop_named(members: Iterable[RangeMember], numbers: Numbers, decided: set[int],
               verify: set[int]) -> None:
    """The naive loop: each clause's bounds against the message's numbers."""
    for entry, exact, bounds in members:
        for name, (low, high) in bounds.items():
            x = numbers[name]
            if x is None or not low <= x <= high:
                break
        else:
            (decided if exact else verify).add(entry)


class _Grid:
    """The bitmaps of one state of a table's clauses."""

    def __init__(self, members: dict[int, RangeMember], names: list[str]) -> None:
        import numpy as np

        count = len(members)
        words = (count + 63) // 64
        self.names = names
        self.rows = {member_id: row for row, member_id in enumerate(members)}
        wide = words > FEW_WORDS
        entries = [m[0] for m in members.values()]
        exact = [m[1] for m in members.values()]
        #: Each row's entry and exactness: lists, or in a wide table numpy arrays
        #: (`_wide_hits` picks its rows' at once).
        self.entries: Any = np.array(entries, dtype=np.int64) if wide else entries
        self.exact: Any = np.array(exact, dtype=bool) if wide else exact
        #: The rows still in the table: one removed since is masked out of every look-up.
        self.live = (1 << count) - 1
        lows = np.full((len(names), count), -math.inf)
        highs = np.full((len(names), count), math.inf)
        bounded = np.zeros((len(names), count), dtype=bool)
        column = {name: i for i, name in enumerate(names)}
        #: A narrow table's bounds per row, as its Python test reads them.
        self.bounds: list[tuple[tuple[int, float, float], ...]] = []
        for row, (_, _, bounds) in enumerate(members.values()):
            flat = tuple((column[name], low, high) for name, (low, high) in bounds.items())
            if not wide:
                self.bounds.append(flat)
            for col, low, high in flat:
                lows[col, row], highs[col, row], bounded[col, row] = low, high, True
        #: A wide table's bounds per identifier and row (a narrow one reads `bounds`).
        self.lows: Any = lows if wide else None
        self.highs: Any = highs if wide else None
        self.words = words
        self.edges: list[list[float]] = []
        self.cells: list[list[int]] = []   # per name and cell: the clauses meeting it
        self.covers: list[list[int]] = []  # per name and cell: those covering all of it
        self.free: list[int] = []          # per name: the clauses that do not bound it
        for col in range(len(names)):
            mask = bounded[col]
            thresholds = np.concatenate((lows[col][mask], highs[col][mask]))
            thresholds = np.unique(thresholds[np.isfinite(thresholds)])
            if len(thresholds) > MAX_CELLS:
                picks = np.linspace(0, len(thresholds) - 1, MAX_CELLS).round().astype(int)
                thresholds = np.unique(thresholds[picks])
            # A value x lies in cell bisect_right(edges, x), the cell [edges[c - 1],
            # edges[c]); an interval [low, high] meets the cells from low's to high's,
            # and covers those whose every value it holds (the end cells reach -inf and
            # +inf).
            first = np.searchsorted(thresholds, lows[col], side="right")
            last = np.searchsorted(thresholds, highs[col], side="right")
            index = np.arange(len(thresholds) + 1)[:, None]
            meets = (first[None, :] <= index) & (index <= last[None, :])
            self.edges.append(thresholds.tolist())
            self.cells.append(_bitmaps(meets, words))
            if not wide:
                starts = np.concatenate(([-math.inf], thresholds))[:, None]
                ends = np.concatenate((thresholds, [math.inf]))[:, None]
                covers = (lows[col][None, :] <= starts) & (highs[col][None, :] >= ends)
                self.covers.append(_bitmaps(covers, words))
            self.free.append(_bitmaps(~mask[None, :], words)[0])

    def mask(self, member_id: int) -> None:
        """Leave a removed clause out of every look-up from now on."""
        row = self.rows.get(member_id)
        if row is not None:
            self.live &= ~(1 << row)

    def hits(self, numbers: Numbers, decided: set[int], verify: set[int]) -> None:
        # The bitmaps are Python ints: an AND of a few thousand words costs well under a
        # microsecond, and most messages leave nothing after one or two of them.
        if not self.names:
            return  # no identifiers: an empty table
        if self.words > FEW_WORDS:
            self._wide_hits(numbers, decided, verify)
            return
        found = sure = self.live
        xs: list[float | None] = []
        for col, name in enumerate(self.names):
            x = numbers[name]
            xs.append(x)
            if x is None:
                free = self.free[col]
                found &= free
                sure &= free
            else:
                cell = bisect_right(self.edges[col], x)
                found &= self.cells[col][cell]
                sure &= self.covers[col][cell]
            if not found:
                return
        rows = _rows(sure)
        unsure = found & ~sure
        if unsure:
            # Few to test: their bounds in Python cost less than numpy calls.
            bounds = self.bounds
            for row in _rows(unsure):
                for col, low, high in bounds[row]:
                    x = xs[col]
                    if x is None or not low <= x <= high:
                        break
                else:
                    rows.append(row)
        entries, exact = self.entries, self.exact
        for row in rows:
            (decided if exact[row] else verify).add(entries[row])

    def _wide_hits(self, numbers: Numbers, decided: set[int], verify: set[int]) -> None:
        """`hits` of a table of many clauses: the cells' AND narrows them, numpy tests the
        rest against their bounds. Reading a set bit out of a wide int costs Python a
        pass over the whole int, so the candidates' positions come from numpy too, and
        every candidate is tested (the covering bitmaps would save tests numpy makes in
        one call, at the price of another wide AND and read-out)."""
        import numpy as np

        found = self.live
        xs: list[float | None] = []
        for col, name in enumerate(self.names):
            x = numbers[name]
            xs.append(x)
            found &= self.free[col] if x is None \
                else self.cells[col][bisect_right(self.edges[col], x)]
            if not found:
                return
        bitmap = np.frombuffer(found.to_bytes(self.words * 8, "little"), dtype="<u8")
        words = bitmap.nonzero()[0]
        bits = np.unpackbits(bitmap[words].view(np.uint8), bitorder="little")
        at, bit = np.nonzero(bits.reshape(len(words), 64))
        rows = words[at] * 64 + bit
        # An absent value: only clauses without a bound there are candidates.
        low_x = np.array([math.inf if x is None else x for x in xs])[:, None]
        high_x = np.array([-math.inf if x is None else x for x in xs])[:, None]
        inside = (self.lows[:, rows] <= low_x).all(axis=0)
        inside &= (self.highs[:, rows] >= high_x).all(axis=0)
        kept = rows[inside]
        proven = self.exact[kept]
        decided.update(self.entries[kept[proven]].tolist())
        verify.update(self.entries[kept[~proven]].tolist())


#: `_rows` reads a bitmap this many bits at a time: each step on a bit costs in
#: proportion to the int it works on, so a wide table's bitmap is cut into narrow ones.
_CHUNK = 1024
_CHUNK_MASK = (1 << _CHUNK) - 1


def _rows(bits: int) -> list[int]:
    """The positions of the set bits of `bits`."""
    out: list[int] = []
    base = 0
    while bits:
        chunk = bits & _CHUNK_MASK
        while chunk:
            lowest = chunk & -chunk
            chunk ^= lowest
            out.append(base + lowest.bit_length() - 1)
        bits >>= _CHUNK
        base += _CHUNK
    return out


def _bitmaps(rows: Any, words: int) -> list[int]:
    """Boolean rows (cells x clauses) as bitmaps: one int per row, bit i for clause i."""
    import numpy as np

    packed = np.packbits(rows, axis=1, bitorder="little")
    return [int.from_bytes(row.tobytes(), "little") for row in packed]


__all__ = ["MAX_CELLS", "VECTOR_FROM", "Numbers", "RangeMember", "RangeTable", "loop_named"]
