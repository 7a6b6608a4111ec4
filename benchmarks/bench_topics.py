"""Benchmark of msgfilter.topics at Pulsar scale.

Run: .venv/bin/python benchmarks/bench_topics.py [--topics 100000] [--watchers 10000]

Prints:
- the average cost of `topic_created` / `topic_deleted` with N topics in the namespace and W
  watchers with distinct patterns (most with a literal prefix, 1% without one);
- the same with one more watcher that matches the whole namespace (each change then rehashes
  a 100 000-name set);
- the cost of `get_topics` whose client hash matches, against one `topics_hash` computation
  over the same listing, with the listing cached and just after a change.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from msgfilter.topics import TopicListService, topics_hash

NAMESPACE = "bench/ns"


def _timed(function: Callable[[], object], repeat: int) -> float:
    """Median seconds of `repeat` calls."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _topic_names(count: int, groups: int) -> list[str]:
    names: list[str] = []
    index = 0
    while len(names) < count:
        group = index % groups
        base = f"persistent://{NAMESPACE}/g{group}-t{index}"
        if index % 5 == 0:  # one topic in five is partitioned, 3 partitions
            names.extend(f"{base}-partition-{p}" for p in range(3))
        else:
            names.append(base)
        index += 1
    return names[:count]


def _patterns(count: int, groups: int) -> list[str]:
    patterns = []
    fallback = max(1, count // 100)
    for k in range(count - fallback):
        group = k % groups
        shape = k // groups
        if shape == 0:
            patterns.append(f"{NAMESPACE}/g{group}-t.*")
        elif shape == 1:
            patterns.append(f"{NAMESPACE}/g{group}-t[0-9]+")
        else:
            patterns.append(f"{NAMESPACE}/g{group}-t{shape}.*")
    for k in range(fallback):
        patterns.append(f".*-t{k}x")  # no literal prefix: tried against every new topic
    return patterns


def _churn(
    service: TopicListService, count: int, groups: int, rounds: int = 3
) -> tuple[float, float]:
    """Median over `rounds` of the mean seconds per topic_created / topic_deleted, for
    `count` new topics that each match a few watchers."""
    created, deleted = [], []
    for round_ in range(rounds):
        new = [
            f"persistent://{NAMESPACE}/g{k % groups}-t{10**7 + round_ * count + k}"
            for k in range(count)
        ]
        start = time.perf_counter()
        for name in new:
            service.topic_created(name)
        created.append((time.perf_counter() - start) / count)
        start = time.perf_counter()
        for name in new:
            service.topic_deleted(name)
        deleted.append((time.perf_counter() - start) / count)
    return statistics.median(created), statistics.median(deleted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=100_000)
    parser.add_argument("--watchers", type=int, default=10_000)
    parser.add_argument("--churn", type=int, default=2_000, help="topics created then deleted")
    args = parser.parse_args()
    groups = max(1, args.watchers // 2)

    service = TopicListService()
    names = _topic_names(args.topics, groups)
    start = time.perf_counter()
    service.topics_created(names)
    load = time.perf_counter() - start
    start = time.perf_counter()
    watchers = [service.watch(NAMESPACE, p) for p in _patterns(args.watchers, groups)]
    watch = time.perf_counter() - start
    print(
        f"setup: {len(names)} topics loaded in {load:.2f} s, "
        f"{len(watchers)} watchers created in {watch:.2f} s"
    )

    created, deleted = _churn(service, args.churn, groups)
    print(
        f"topic_created: {created * 1e6:.1f} us/topic, topic_deleted: {deleted * 1e6:.1f} "
        f"us/topic ({len(names)} topics, {len(watchers)} watchers)"
    )
    queued = sum(len(service.poll_updates(w.watcher_id)) for w in watchers)
    print(
        f"  updates queued during the churn: {queued} ({queued / (6 * args.churn):.1f} per change)"
    )

    whole = service.watch(NAMESPACE, f"persistent://{NAMESPACE}/.*")
    created, deleted = _churn(service, args.churn // 4, groups)
    print(
        f"with one more watcher matching all {len(names)} topics: topic_created "
        f"{created * 1e6:.1f} us/topic, topic_deleted {deleted * 1e6:.1f} us/topic"
    )
    service.unwatch(whole.watcher_id)

    listing = service.get_topics(NAMESPACE)
    reference = _timed(lambda: topics_hash(listing.topics), 7)
    hit = _timed(lambda: service.get_topics(NAMESPACE, None, listing.topics_hash), 1001)
    pattern = f"{NAMESPACE}/g1-.*"
    filtered = service.get_topics(NAMESPACE, pattern)
    hit_pattern = _timed(lambda: service.get_topics(NAMESPACE, pattern, filtered.topics_hash), 1001)

    def after_change() -> None:
        service.topic_created(f"persistent://{NAMESPACE}/zz-bump")
        service.topic_deleted(f"persistent://{NAMESPACE}/zz-bump")
        service.get_topics(NAMESPACE, None, listing.topics_hash)

    miss = _timed(after_change, 7)

    def after_change_pattern() -> None:
        service.topic_created(f"persistent://{NAMESPACE}/zz-bump")
        service.topic_deleted(f"persistent://{NAMESPACE}/zz-bump")
        service.get_topics(NAMESPACE, pattern, filtered.topics_hash)

    miss_pattern = _timed(after_change_pattern, 7)
    print(f"one topics_hash over the {len(listing.topics)}-name listing: {reference * 1e3:.2f} ms")
    print(
        f"get_topics, matching hash, cached: no pattern {hit * 1e6:.2f} us, "
        f"pattern {hit_pattern * 1e6:.2f} us "
        f"({reference / hit:.0f}x / {reference / hit_pattern:.0f}x cheaper than the hash)"
    )
    print(
        f"get_topics, matching hash, first call after a change: no pattern "
        f"{miss * 1e3:.2f} ms, pattern {pattern!r} {miss_pattern * 1e3:.2f} ms"
    )


if __name__ == "__main__":
    main()
