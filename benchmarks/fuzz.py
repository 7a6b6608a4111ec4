"""Long fuzzing runs of the selector engine, outside CI.

    .venv/bin/python benchmarks/fuzz.py --minutes 10               # both kinds
    .venv/bin/python benchmarks/fuzz.py --minutes 5 --mode atheris
    .venv/bin/python benchmarks/fuzz.py --minutes 30 --mode properties --backends

Two kinds of run share the time:

* properties: the Hypothesis properties of tests/test_properties.py (and, with
  --backends, the Arrow and Spark ones) in rounds of many examples, each round with a
  new seed, until the time is up. A failing round's output goes to the output folder
  and the Hypothesis database replays it next time.
* atheris: coverage-guided fuzzing of the parser with atheris (libFuzzer), when it is
  installed (`pip install atheris`). Each input is checked as a selector: compile()
  raises nothing but a positioned FilterError; it rejects exactly what the reference
  evaluator rejects; a compiled selector answers like the reference on a set of
  messages and round-trips through unparse. Findings are written to
  `atheris-findings.jsonl`, shrunk, and summarised at the end; the fuzzer keeps going.

Exit status 1 when anything was found.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PROPERTY_TESTS = "agrees or round_trips or cleanly or source or pickle or never_raise"

# -- the checks, shared by the atheris child and the shrinking parent ----------------------


def _messages(names: frozenset[str]) -> list[dict[str, object]]:
    """A spread of messages over `names`: every name with the same value, then mixed."""
    values: list[object] = [
        None, 0, 1, 2, -1, 2**63 - 1, -(2**63), 1.5, -0.0, math.nan, math.inf, "", "x",
        "a%", "😀", True, False, b"x",
    ]
    ordered = sorted(names)
    found = [{name: value for name in ordered} for value in values]
    rng = random.Random(len(ordered))
    for _ in range(8):
        found.append({name: rng.choice(values) for name in ordered})
    return found


def check(text: str) -> tuple[str, str] | None:
    """None when `text` behaves; else (kind of finding, detail)."""
    import msgfilter
    from msgfilter import FilterError, FilterPositionError
    from msgfilter.testing import reference_filter

    try:
        f = msgfilter.compile(text)
    except FilterPositionError as error:
        if not 0 <= error.offset <= len(text):
            return "offset", f"offset {error.offset} outside 0..{len(text)}"
        engine_error = True
    except FilterError as error:
        return "unpositioned", f"{type(error).__name__}: {error}"
    except Exception as error:
        return "crash", f"{type(error).__name__}: {str(error)[:200]}"
    else:
        engine_error = False
    try:
        ref = reference_filter(text)
    except FilterError:
        return None if engine_error else ("accepts", "compile accepts, the reference rejects")
    except Exception as error:
        return "reference-crash", f"{type(error).__name__}: {str(error)[:200]}"
    if engine_error:
        return "rejects", "compile rejects, the reference accepts"
    for message in _messages(ref.identifiers):
        got, expected = f.evaluate(message), ref.evaluate(message)
        if got is not expected:
            return "disagreement", f"{message!r}: compiled {got}, reference {expected}"
    try:
        again = msgfilter.compile(str(f))
    except Exception as error:
        return "unparse", f"{str(f)!r} does not compile: {type(error).__name__}: {error}"
    if again != f:
        return "unparse", f"{str(f)!r} compiles to a different filter"
    return None


def shrink(text: str, kind: str) -> str:
    """A shorter text with the same kind of finding: drop chunks while it persists."""
    def same(candidate: str) -> bool:
        found = check(candidate)
        return found is not None and found[0] == kind

    chunk = max(1, len(text) // 2)
    while chunk >= 1:
        i, changed = 0, False
        while i < len(text):
            candidate = text[:i] + text[i + chunk :]
            if candidate != text and same(candidate):
                text, changed = candidate, True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return text


# -- atheris -------------------------------------------------------------------------------


def atheris_child(findings_path: str, libfuzzer_args: list[str]) -> None:
    import atheris  # type: ignore[import-untyped]

    with atheris.instrument_imports():
        # Imported inside the block so that atheris instruments them (and lark) for coverage.
        import msgfilter
        import msgfilter.testing.reference  # noqa: F401

    seen: set[tuple[str, str]] = set()

    def one_input(data: bytes) -> None:
        text = data.decode("utf-8", "replace")
        found = check(text)
        if found is None:
            return
        key = (found[0], found[1].split(":")[0][:80])
        if key in seen or len(seen) > 200:
            return
        seen.add(key)
        with open(findings_path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"kind": found[0], "detail": found[1], "text": text}) + "\n")

    atheris.Setup([sys.argv[0], *libfuzzer_args], one_input)
    atheris.Fuzz()


def _seed_corpus(folder: Path) -> None:
    corpus = ROOT.parent / "shared" / "conformance" / "activemq-corpus-seed1.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    if corpus.exists():
        for line in corpus.read_text(encoding="utf-8").splitlines()[:600]:
            case = json.loads(line)
            (folder / f"c{case['id']}").write_text(case["selector"], encoding="utf-8")


def _dictionary(path: Path) -> None:
    words = [
        "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE", "NULL", "TRUE", "FALSE",
        "<>", "<=", ">=", "=", "(", ")", ",", "'", "''", "0x", "1e", ".5", "9223372036854775808",
        "JMSPriority", "\\x09", "\\x0A", "\\x0C",  # libFuzzer's escapes: tab, LF, FF
    ]
    path.write_text("".join(f'"{w}"\n' for w in words), encoding="utf-8")


def run_atheris(seconds: int, out: Path) -> list[dict[str, Any]]:
    if importlib.util.find_spec("atheris") is None:
        print("atheris is not installed: skipping the coverage-guided run")
        return []
    findings = out / "atheris-findings.jsonl"
    findings.unlink(missing_ok=True)
    work = Path(tempfile.mkdtemp(prefix="msgfilter-fuzz-"))
    _seed_corpus(work / "corpus")
    _dictionary(work / "selectors.dict")
    args = [
        f"-max_total_time={seconds}", "-max_len=512", "-timeout=20", "-rss_limit_mb=4096",
        f"-dict={work / 'selectors.dict'}", f"-artifact_prefix={out}/", str(work / "corpus"),
    ]
    print(f"atheris: {seconds} s, corpus in {work}")
    subprocess.run(
        [sys.executable, __file__, "_atheris", str(findings), *args],
        cwd=ROOT, timeout=seconds + 120, check=False,
    )
    if not findings.exists():
        return []
    results = [json.loads(line) for line in findings.read_text(encoding="utf-8").splitlines()]
    for finding in results:
        finding["shrunk"] = shrink(finding["text"], finding["kind"])
        finding["shrunk_detail"] = (check(finding["shrunk"]) or ("", ""))[1]
    findings.write_text("".join(json.dumps(f) + "\n" for f in results), encoding="utf-8")
    return results


# -- Hypothesis rounds ----------------------------------------------------------------------


def run_properties(seconds: int, out: Path, backends: bool, examples: int) -> list[str]:
    deadline = time.monotonic() + seconds
    files = ["tests/test_properties.py"] + (["tests/test_properties_backends.py"] if backends
                                            else [])
    env = {**os.environ, "MSGFILTER_HYPOTHESIS_PROFILE": "msgfilter-fuzz",
           "MSGFILTER_HYPOTHESIS_EXAMPLES": str(examples)}
    failures: list[str] = []
    round_number = 0
    while (left := deadline - time.monotonic()) > 10:
        round_number += 1
        seed = random.randrange(2**32)
        command = [sys.executable, "-m", "pytest", *files, "-q", "-p", "no:cacheprovider",
                   "-k", PROPERTY_TESTS, f"--hypothesis-seed={seed}"]
        print(f"properties round {round_number}: seed {seed}, {examples} examples, "
              f"{int(left)} s left")
        try:
            done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                                  timeout=left, check=False)
        except subprocess.TimeoutExpired:
            print("  time is up in the middle of a round (nothing failed so far)")
            break
        tail = done.stdout.strip().splitlines()[-1:] or [""]
        print("  " + tail[0])
        if done.returncode not in (0, 5):
            log = out / f"properties-{seed}.log"
            log.write_text(done.stdout + done.stderr, encoding="utf-8")
            failures.append(str(log))
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="total time (default 5)")
    parser.add_argument("--mode", choices=("both", "properties", "atheris"), default="both")
    parser.add_argument("--backends", action="store_true",
                        help="also the Arrow and Spark agreement properties")
    parser.add_argument("--examples", type=int, default=2000,
                        help="Hypothesis examples per property per round (default 2000)")
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "fuzz",
                        help="where findings go (default out/fuzz)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    total = int(args.minutes * 60)
    share = {"both": 0.5, "properties": 1.0, "atheris": 0.0}[args.mode]
    failures: list[str] = []
    findings: list[dict[str, Any]] = []
    if share:
        failures = run_properties(int(total * share), args.out, args.backends, args.examples)
    if share < 1:
        findings = run_atheris(int(total * (1 - share)), args.out)
    print(f"\nproperty rounds that failed: {len(failures)}")
    for log in failures:
        print(f"  {log}")
    print(f"atheris findings: {len(findings)}")
    for finding in findings:
        print(f"  {finding['kind']}: {finding['shrunk']!r}\n    {finding['shrunk_detail']}")
    return 1 if failures or findings else 0


def _entry() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "_atheris":
        atheris_child(sys.argv[2], sys.argv[3:])
        return 0
    return main()


if __name__ == "__main__":
    sys.exit(_entry())
