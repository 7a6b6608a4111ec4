"""The checkpoint of `msgfilter route --follow` beside Spark's: what makes each
micro-batch's output appear exactly once, whenever the job is killed.

Spark's checkpoint (`spark/` in the checkpoint folder) logs each micro-batch's input
files before the batch runs (`offsets/`, `sources/`) and marks it done after
`foreachBatch` returns (`commits/`); after a crash it runs the last logged batch again,
over the same files. So a batch may run twice, never with other input, and its writes
must be idempotent by batch id. Here each run of batch N:

1. is skipped when `routed/N.json` exists (the batch was committed here, and the job
   died before Spark logged it done);
2. routes into `staging/batch-N/` (emptied first: an earlier attempt's leftovers);
3. moves each file into `messages/subscription=<name>/batch-<N>-<file>`, after deleting
   any `batch-<N>-*` file there (an earlier attempt that died mid-move);
4. writes `routed/N.json` (the running totals after N) atomically: the commit.

A re-run of N therefore replaces what an earlier attempt of N left, never adds to it.
`msgfilter.json` records what the checkpoint was made for (the subscriptions, the
archive, its format and schema), so that a restart with other subscriptions is refused
rather than mixing two sets in one output.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .route_input import RouteError

#: The folders and files of the checkpoint folder.
SPARK_DIR, ROUTED_DIR, STAGING_DIR, IDENTITY_FILE = "spark", "routed", "staging", "msgfilter.json"
#: Commit records kept (older ones are deleted), as Spark keeps its last 100 batches.
KEEP_RECORDS = 100
_RECORD = re.compile(r"^(\d+)\.json$")


@dataclass(frozen=True, slots=True)
class Totals:
    """The running totals after a batch: what the report shows."""

    batch: int = -1
    batches: int = 0
    files: int = 0
    messages: int = 0
    bytes: int = 0
    #: Per subscription name: (messages, bytes) delivered.
    deliveries: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    #: Bad input files skipped: (file, why).
    skipped: tuple[tuple[str, str], ...] = ()

    def plus(
        self, batch: int, files: int, messages: int, size: int,
        delivered: Iterable[tuple[str, int, int]], skipped: Sequence[tuple[str, str]] = (),
    ) -> Totals:
        """These totals with batch `batch` added."""
        deliveries = dict(self.deliveries)
        for name, count, more in delivered:
            before = deliveries.get(name, (0, 0))
            deliveries[name] = (before[0] + count, before[1] + more)
        return replace(
            self, batch=batch, batches=self.batches + 1, files=self.files + files,
            messages=self.messages + messages, bytes=self.bytes + size, deliveries=deliveries,
            skipped=self.skipped + tuple(skipped),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "batch": self.batch, "batches": self.batches, "files": self.files,
            "messages": self.messages, "bytes": self.bytes,
            "deliveries": {name: list(pair) for name, pair in self.deliveries.items()},
            "skipped": [list(pair) for pair in self.skipped],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Totals:
        return cls(
            batch=int(data["batch"]), batches=int(data["batches"]), files=int(data["files"]),
            messages=int(data["messages"]), bytes=int(data["bytes"]),
            deliveries={k: (int(v[0]), int(v[1])) for k, v in data["deliveries"].items()},
            skipped=tuple((str(a), str(b)) for a, b in data["skipped"]),
        )


def write_atomically(path: Path, text: str) -> None:
    """`text` in `path`, written under a hidden name beside it and renamed over it."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class BatchLog:
    """The commit records of one checkpoint folder (see the module doc)."""

    def __init__(self, checkpoint: Path) -> None:
        self.checkpoint = checkpoint
        self.routed = checkpoint / ROUTED_DIR
        self.staging = checkpoint / STAGING_DIR

    def record(self, batch: int) -> Totals | None:
        """The totals committed with `batch`, or None when it is not committed."""
        path = self.routed / f"{batch}.json"
        if not path.exists():
            return None
        return Totals.from_json(json.loads(path.read_text(encoding="utf-8")))

    def latest(self, before: int | None = None) -> Totals:
        """The totals of the last committed batch (below `before` when given)."""
        if not self.routed.is_dir():
            return Totals()
        ids = [int(m.group(1)) for f in os.listdir(self.routed) if (m := _RECORD.match(f))]
        ids = [i for i in ids if before is None or i < before]
        found = self.record(max(ids)) if ids else None
        return found if found is not None else Totals()

    def stage(self, batch: int) -> Path:
        """An empty staging folder for `batch` (what an earlier attempt left is gone)."""
        folder = self.staging / f"batch-{batch}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        return folder

    def commit(
        self, batch: int, staged: Path, messages: Path, totals: Totals,
        halfway: Callable[[], None] = lambda: None,
    ) -> int:
        """Move `batch`'s files from `staged` (subscription=<name>/ folders) into
        `messages`, replacing any an earlier attempt of the batch moved, then record
        `totals`: the commit. Returns the number of files moved. `halfway` runs when
        half of them are moved (the crash test's kill point)."""
        prefix = f"batch-{batch:08d}-"
        if messages.is_dir():
            for folder in messages.iterdir():
                for old in folder.glob(prefix + "*") if folder.is_dir() else ():
                    old.unlink()
        moves = [
            (source, messages / source.parent.name / (prefix + source.name))
            for source in sorted(staged.glob("*=*/*"))
            if source.is_file() and not source.name.startswith(("_", "."))
        ]
        for number, (source, target) in enumerate(moves):
            if number == len(moves) // 2:
                halfway()
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
        self.routed.mkdir(parents=True, exist_ok=True)
        write_atomically(self.routed / f"{batch}.json", json.dumps(totals.to_json()))
        shutil.rmtree(staged, ignore_errors=True)
        self._prune(batch)
        return len(moves)

    def _prune(self, batch: int) -> None:
        for name in os.listdir(self.routed):
            if (m := _RECORD.match(name)) and int(m.group(1)) <= batch - KEEP_RECORDS:
                (self.routed / name).unlink(missing_ok=True)


def batch_files(checkpoint: Path, batch: int) -> list[str] | None:
    """The input files Spark's file source logged for `batch` (its `sources/0/` log:
    a version line, then one JSON entry a file; every tenth batch a `.compact` file
    holds the entries so far), or None when the log is not there to read."""
    folder = checkpoint / SPARK_DIR / "sources" / "0"
    for name in (str(batch), f"{batch}.compact"):
        path = folder / name
        if path.is_file():
            lines = path.read_text(encoding="utf-8").splitlines()[1:]
            entries = [json.loads(line) for line in lines if line.strip()]
            return [e["path"] for e in entries if int(e.get("batchId", batch)) == batch]
    return None


def check_identity(checkpoint: Path, identity: Mapping[str, Any], flag: str) -> dict[str, Any]:
    """What `checkpoint` records of the job it was made for, after checking that this
    run is that job: RouteError naming what changed and `flag` (which starts over)
    otherwise. {} for a new checkpoint folder (absent or empty)."""
    path = checkpoint / IDENTITY_FILE
    if not path.exists():
        if checkpoint.is_dir() and any(checkpoint.iterdir()):
            raise RouteError(
                f"{checkpoint} is not empty and is not a msgfilter checkpoint "
                f"(no {IDENTITY_FILE}): give another --checkpoint, or {flag} to replace it"
            )
        return {}
    recorded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    changes = _changes(recorded, identity)
    if changes:
        raise RouteError(
            f"the checkpoint in {checkpoint} was made for other input: "
            + "; ".join(changes)
            + ". Routing on would mix two routings in one output. Run again with "
            f"{flag} to start over (it deletes the checkpoint and the routed messages, and "
            "routes the whole archive again), or restore the earlier input"
        )
    return recorded


def _changes(recorded: Mapping[str, Any], identity: Mapping[str, Any]) -> list[str]:
    """What differs between the recorded identity and this run's, in words."""
    found = [
        f"{key} was {recorded.get(key)!r}, now {identity[key]!r}"
        for key in ("archive", "format")
        if recorded.get(key) != identity[key]
    ]
    before = {s[0]: tuple(s) for s in recorded.get("subscriptions", ())}
    now = {s[0]: tuple(s) for s in identity["subscriptions"]}
    added = [n for n in now if n not in before]
    removed = [n for n in before if n not in now]
    changed = [n for n in now if n in before and now[n] != before[n]]
    for what, names in (("added", added), ("removed", removed), ("changed", changed)):
        if names:
            shown = ", ".join(repr(n) for n in names[:5])
            more = f" and {len(names) - 5} more" if len(names) > 5 else ""
            found.append(f"subscriptions {what}: {shown}{more}")
    if not (added or removed or changed) and list(before) != list(now):
        found.append("the subscriptions are in another order")
    return found


def write_identity(checkpoint: Path, identity: Mapping[str, Any]) -> None:
    """Record what `checkpoint` is made for (see `check_identity`)."""
    checkpoint.mkdir(parents=True, exist_ok=True)
    write_atomically(checkpoint / IDENTITY_FILE, json.dumps(identity, indent=1) + "\n")
