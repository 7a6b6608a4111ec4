"""bench_batch.py's steps counted in instructions (valgrind), which machine load does not move.

On a shared machine the CPU time of a step moves by up to 2x from run to run; the number of
instructions it executes does not (it is not the time: cache misses cost more on a loaded
machine, and an instruction is not a fixed cost). Each step runs `--runs` times in a child
process under ``valgrind --tool=cachegrind``, less a child that only sets up; the figures
are instructions per message of bench_batch.py's 1 000-message batch, and the ratios the
issue 15 goals are stated in.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_instructions.py [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable

SIZE = 1000
STEPS = ("bare", "decide", "decide-exact-stored", "read_entry", "rebatch")


def _steps() -> dict[str, Callable[[], object]]:
    """The steps, set up as bench_batch.py sets them up."""
    from bench_batch import SELECTOR, messages

    import msgfilter
    from msgfilter.batch import BatchMode
    from msgfilter.broker import (
        Entry,
        FilterContext,
        JmsSelectorConfig,
        JmsSelectorFilter,
        Position,
    )
    from msgfilter.jsmtype import encode_properties, pulsar_message
    from msgfilter.pulsar import (
        BatchMessage,
        BatchMetadata,
        encode_batch,
        read_entry,
        rebatch_entry,
    )

    batch = messages(SIZE)
    matches = msgfilter.compile(SELECTOR).matches
    typed = Entry.batch(Position(1, 0), [pulsar_message(encode_properties(m)) for m in batch])
    ctx = FilterContext(
        "bench", {"jms.filtering": "true", "jms.selector": SELECTOR}, {"jms.filtering": "true"}
    )
    jms = JmsSelectorFilter()
    exact = JmsSelectorFilter(JmsSelectorConfig(batch_mode=BatchMode.EXACT))
    stored_messages = [
        BatchMessage(json.dumps(m).encode(), tuple(encode_properties(m).items()),
                     partition_key=f"key-{i % 16}", sequence_id=i)
        for i, m in enumerate(batch)
    ]
    data = encode_batch(
        BatchMetadata("bench-producer", 0, 1_700_000_000_000, compression="LZ4"),
        stored_messages,
    )
    position = Position(7, 3)
    stored = read_entry(position, data)
    assert stored.entry is not None
    entry = stored.entry
    decision = exact.decide(entry, ctx)
    decoded = (stored.metadata, stored.messages)
    jms.decide(typed, ctx)  # compiled here, not in the counted runs
    return {
        "none": lambda: None,
        "bare": lambda: [matches(m) for m in batch],
        "decide": lambda: jms.decide(typed, ctx),
        "decide-exact-stored": lambda: exact.decide(entry, ctx),
        "read_entry": lambda: read_entry(position, data),
        "rebatch": lambda: rebatch_entry(decoded, decision),
    }


def _child(step: str, runs: int) -> None:
    run = _steps()[step]
    for _ in range(runs):
        run()


def _count(step: str, runs: int) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    env = {**os.environ, "PYTHONHASHSEED": "0",
           "PYTHONPATH": os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, __file__, "--child", step, "--runs", str(runs)],
        env=env, capture_output=True, text=True, check=True,
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"valgrind printed no instruction count for {step}:\n{done.stderr}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--child", choices=("none", *STEPS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.runs)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed: apt-get install valgrind")
    base = _count("none", args.runs)
    per: dict[str, float] = {}
    for step in STEPS:
        per[step] = (_count(step, args.runs) - base) / (args.runs * SIZE)
        print(f"  {step:22} {per[step]:9.0f} instructions per message", flush=True)
    print(f"  decide / bare loop                   {per['decide'] / per['bare']:.2f}x"
          " (goal <= 1.5)")
    codec = per["read_entry"] + per["rebatch"]
    print(f"  codec work / filtering (EXACT)       {codec / per['decide-exact-stored']:.2f}x"
          " (goal <= 1)")


if __name__ == "__main__":
    main()
