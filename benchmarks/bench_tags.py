"""Speed of the tag filters: prints figures, asserts nothing.

    .venv/bin/python benchmarks/bench_tags.py [--codes 1000000] [--repeat 7]

Scalar figures are nanoseconds per loop iteration (best of `--repeat`), shown raw and net of
the cost of an empty loop; bulk figures are milliseconds per call over `--codes` codes.
"""

from __future__ import annotations

import argparse
import platform
import timeit
from collections.abc import Callable

import numpy as np

import msgfilter
from msgfilter.tags import PulsarTagFilter, RocketMQTagFilter, tag_code


def per_item(stmt: str, namespace: dict[str, object], items: int, repeat: int) -> float:
    """Best nanoseconds per item of `stmt`, which loops over `items` items."""
    timer = timeit.Timer(stmt, globals=namespace)
    return min(timer.repeat(repeat=repeat, number=1)) / items * 1e9


def per_call_ms(call: Callable[[], object], repeat: int, number: int = 5) -> float:
    return min(timeit.repeat(call, repeat=repeat, number=number)) / number * 1e3


def scalar(repeat: int) -> None:
    f = msgfilter.compile("TagA || TagB", dialect="rocketmq-tag")
    everything = msgfilter.compile("*", dialect="rocketmq-tag")
    assert isinstance(f, RocketMQTagFilter) and isinstance(everything, RocketMQTagFilter)
    codes_set = f.tag_codes
    # A mix of hits and misses, as a consume queue holds.
    codes = [2598919, 2598920, 2567175, 0, 12345, 2598919, -7, 99] * 25_000
    ns = {"codes": codes, "s": codes_set, "f": f, "mc": f.matches_code, "a": everything}
    n = len(codes)
    empty = per_item("for c in codes: pass", ns, n, repeat)
    bare = per_item("for c in codes: c in s", ns, n, repeat)
    rows = [
        ("empty loop", empty),
        ("bare: code in frozenset (local)", bare),
        ("bare call: s.__contains__(code)",
         per_item("for c in codes: s.__contains__(c)", ns, n, repeat)),
        ("code in f.tag_codes", per_item("for c in codes: c in f.tag_codes", ns, n, repeat)),
        ("f.matches_code(code)", per_item("for c in codes: f.matches_code(c)", ns, n, repeat)),
        ("mc(code), mc = f.matches_code", per_item("for c in codes: mc(c)", ns, n, repeat)),
        ("subscribe-all a.matches_code(code)",
         per_item("for c in codes: a.matches_code(c)", ns, n, repeat)),
    ]
    print("matches_code, ns per code (raw / net of the empty loop / net ratio to bare):")
    for label, value in rows:
        ratio = (value - empty) / (bare - empty)
        print(f"  {label:<38} {value:6.1f}  {value - empty:6.1f}  {ratio:5.2f}x")


def bulk(count: int, repeat: int) -> None:
    rng = np.random.default_rng(7)
    print(f"\nmatches_codes over {count:,} codes, ms per call (speed-up over a Python loop):")
    for n_tags in (2, 8, 32, 100):
        bulk_case(n_tags, count, repeat, rng)


def bulk_case(n_tags: int, count: int, repeat: int, rng: np.random.Generator) -> None:
    tags = [f"Tag{i}" for i in range(n_tags)]
    f = msgfilter.compile(" || ".join(tags), dialect="rocketmq-tag")
    assert isinstance(f, RocketMQTagFilter)
    # Codes of subscribed tags among other codes, as a consume queue of a busy topic holds.
    pool = np.array([tag_code(t) for t in tags] + list(range(-50, 50)), dtype=np.int64)
    arr64 = rng.choice(pool, size=count)
    arr32 = arr64.astype(np.int32)
    as_list = arr64.tolist()
    mc = f.matches_code
    loop = per_call_ms(lambda: [mc(c) for c in as_list], repeat, number=1)
    # The same loop over the numpy array itself: every entry becomes a numpy scalar first.
    loop_np = per_call_ms(lambda: [mc(c) for c in arr64], max(1, repeat // 3), number=1)
    cases: list[tuple[str, Callable[[], object]]] = [
        ("numpy int64", lambda: f.matches_codes(arr64)),
        ("numpy int32", lambda: f.matches_codes(arr32)),
        ("list of int", lambda: f.matches_codes(as_list)),
    ]
    try:
        import pyarrow as pa
    except ImportError:
        print("  (pyarrow not installed: no Arrow figures)")
    else:
        arrow = pa.array(arr64)
        with_nulls = pa.array([*as_list[:-1], None], type=pa.int64())
        cases.append(("pyarrow int64", lambda: f.matches_codes(arrow)))
        cases.append(("pyarrow int64 with a null", lambda: f.matches_codes(with_nulls)))
    print(f"  {n_tags} tags: Python loop of mc(code) over a list: {loop:8.2f}"
          f"  (over the numpy array: {loop_np:.2f})")
    for label, call in cases:
        took = per_call_ms(call, repeat)
        print(f"    {label:<28} {took:8.2f}  ({loop / took:6.1f}x)")


def messages(repeat: int) -> None:
    rmq = msgfilter.compile("TagA || TagB", dialect="rocketmq-tag")
    anytag = PulsarTagFilter(any_tags=["x", "y"])
    both = PulsarTagFilter(any_tags=["x", "y"], all_tags=["eu"])
    hit = {"TAGS": "TagB", "a": 1, "b": "two"}
    miss = {"TAGS": "TagC", "a": 1, "b": "two"}
    props = {"tag1": "x", "tag2": "eu", "region": "eu", "k": 3}
    wrapped = msgfilter.Message(properties={"a": 1}, tags="TagA")
    ns: dict[str, object] = {
        "rmq": rmq, "anytag": anytag, "both": both, "hit": hit, "miss": miss,
        "props": props, "wrapped": wrapped, "r": range(100_000), "tag_code": tag_code,
    }
    rows = [
        ("rocketmq f.matches(dict), tag in set", "rmq.matches(hit)"),
        ("rocketmq f.matches(dict), tag not in set", "rmq.matches(miss)"),
        ("rocketmq f.matches(Message)", "rmq.matches(wrapped)"),
        ("pulsar anytag f.matches(dict)", "anytag.matches(props)"),
        ("pulsar anytag+alltag f.matches(dict)", "both.matches(props)"),
        ("tag_code('TagA')", "tag_code('TagA')"),
        ("tag_code(16 ASCII chars)", "tag_code('order-created-eu1')"),
    ]
    empty = per_item("for _ in r: pass", ns, 100_000, repeat)
    print("\nper message, ns per call (net of the empty loop):")
    for label, expr in rows:
        took = per_item(f"for _ in r: {expr}", ns, 100_000, repeat) - empty
        print(f"  {label:<42} {took:7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--codes", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    scalar(args.repeat)
    bulk(args.codes, args.repeat)
    messages(args.repeat)


if __name__ == "__main__":
    main()
