"""The live broker the driver and campaign tests share."""

from __future__ import annotations

import contextlib
import fcntl
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import live_activemq


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def activemq(tmp_path_factory: pytest.TempPathFactory) -> Iterator[live_activemq.Broker]:
    """One ActiveMQ broker for the whole run, shared by the xdist workers: the first
    worker to need it starts it (on free loopback ports), the last one to finish stops it
    by its PID, also when a test fails or the run is interrupted."""
    reason = live_activemq.unavailable()
    if reason:
        pytest.skip(reason)
    # Under xdist every worker's base temp sits in one shared folder.
    shared = tmp_path_factory.getbasetemp()
    if shared.name.startswith("popen-gw"):
        shared = shared.parent
    state_file, lock = shared / "activemq.json", shared / "activemq.lock"
    with _locked(lock):
        state = json.loads(state_file.read_text()) if state_file.exists() else None
        if state is None:
            broker = live_activemq.start(str(shared / "activemq"))
            state = {"broker": broker.__dict__, "users": 0}
        state["users"] += 1
        state_file.write_text(json.dumps(state))
    try:
        yield live_activemq.Broker(**state["broker"])
    finally:
        with _locked(lock):
            state = json.loads(state_file.read_text())
            state["users"] -= 1
            if state["users"] == 0:
                live_activemq.stop(live_activemq.Broker(**state["broker"]))
                state_file.unlink()
            else:
                state_file.write_text(json.dumps(state))
