"""A throw-away ActiveMQ Classic broker (Debian's `activemq` package) on free loopback ports.

Nothing under /etc is read or written: the broker gets a folder of its own with its
configuration, data and log, and is stopped by its PID. Run this file to keep one up by
hand (for `msgfilter fuzz-broker`):

    python tests/live_activemq.py      # prints the STOMP address; Ctrl-C stops it
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ACTIVEMQ_HOME = Path("/usr/share/activemq")
ACTIVEMQ_JAR = ACTIVEMQ_HOME / "bin" / "activemq.jar"

_CONFIG = """<beans xmlns="http://www.springframework.org/schema/beans"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.springframework.org/schema/beans
    http://www.springframework.org/schema/beans/spring-beans.xsd
    http://activemq.apache.org/schema/core
    http://activemq.apache.org/schema/core/activemq-core.xsd">
  <broker xmlns="http://activemq.apache.org/schema/core" brokerName="msgfilter-test"
          persistent="false" useJmx="false" advisorySupport="false"
          schedulerSupport="false">
    <transportConnectors>
      <transportConnector name="stomp"
        uri="stomp://127.0.0.1:{stomp}?transport.tcpNoDelay=true"/>
      <transportConnector name="openwire"
        uri="tcp://127.0.0.1:{openwire}?transport.tcpNoDelay=true"/>
    </transportConnectors>
  </broker>
</beans>
"""

_LOG4J = """log4j.rootLogger=WARN, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File={log}
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=%d %-5p %c - %m%n
"""


def unavailable() -> str | None:
    """Why no broker can be started here, or None when one can."""
    if not ACTIVEMQ_JAR.exists():
        return (f"ActiveMQ is not installed ({ACTIVEMQ_JAR} is missing): "
                "`apt-get install activemq` (.ci/run does)")
    if shutil.which("java") is None:
        return "no `java` on PATH to run ActiveMQ"
    return None


def _free_ports(count: int) -> list[int]:
    # Held open together so that the two differ; the kernel does not hand a port it just
    # gave out to the next bind(0), so another worker's broker cannot take them meanwhile.
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


# The Popen objects of the brokers this process started, kept until they are stopped
# (a Popen dropped while its process runs is a ResourceWarning, and cannot reap it).
_STARTED: dict[int, subprocess.Popen[bytes]] = {}


@atexit.register
def _stop_all() -> None:
    # A run that ends without tearing its fixtures down (a crash) stops them here.
    for pid in list(_STARTED):
        stop(Broker(pid, 0, 0, ""))


@dataclass(frozen=True)
class Broker:
    pid: int
    stomp_port: int
    openwire_port: int
    base: str

    @property
    def log(self) -> Path:
        return Path(self.base) / "data" / "broker.log"


def start(base: str, timeout: float = 60.0) -> Broker:
    """Start a broker in the folder `base` and wait until its STOMP port accepts."""
    reason = unavailable()
    if reason:
        raise RuntimeError(reason)
    root = Path(base)
    (root / "conf").mkdir(parents=True, exist_ok=True)
    (root / "data").mkdir(exist_ok=True)
    stomp, openwire = _free_ports(2)
    (root / "conf" / "activemq.xml").write_text(_CONFIG.format(stomp=stomp, openwire=openwire))
    (root / "conf" / "log4j.properties").write_text(_LOG4J.format(log=root / "data" / "broker.log"))
    command = [
        "java", "-Xms64m", "-Xmx512m", "-XX:+UseSerialGC",
        f"-Dactivemq.home={ACTIVEMQ_HOME}", f"-Dactivemq.base={root}",
        f"-Dactivemq.conf={root / 'conf'}", f"-Dactivemq.data={root / 'data'}",
        f"-Dlog4j.configuration=file:{root / 'conf' / 'log4j.properties'}",
        "-jar", str(ACTIVEMQ_JAR), "start", f"xbean:file:{root / 'conf' / 'activemq.xml'}",
    ]
    with open(root / "data" / "console.log", "wb") as console:
        process = subprocess.Popen(
            command, stdout=console, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    _STARTED[process.pid] = process
    broker = Broker(process.pid, stomp, openwire, str(root))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            console_text = (root / "data" / "console.log").read_text(errors="replace")
            _STARTED.pop(process.pid, None)
            raise RuntimeError(
                f"ActiveMQ exited with {process.returncode}:\n{console_text[-2000:]}"
            )
        try:
            with socket.create_connection(("127.0.0.1", stomp), timeout=0.5):
                return broker
        except OSError:
            time.sleep(0.1)
    stop(broker)
    raise RuntimeError(f"ActiveMQ did not open its STOMP port within {timeout:g} s")


def stop(broker: Broker, timeout: float = 15.0) -> None:
    """Stop the broker by its PID: SIGTERM, then SIGKILL if it lingers."""
    process = _STARTED.pop(broker.pid, None)
    if process is not None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        return
    try:
        os.kill(broker.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _alive(broker.pid):  # another worker started it, and reaps it
            return
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.kill(broker.pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    # A process another worker started and has not reaped yet is a zombie: dead.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def main() -> int:
    reason = unavailable()
    if reason:
        print(reason, file=sys.stderr)
        return 2
    base = tempfile.mkdtemp(prefix="msgfilter-activemq-")
    broker = start(base)
    print(f"ActiveMQ (pid {broker.pid}): STOMP 127.0.0.1:{broker.stomp_port}, "
          f"OpenWire 127.0.0.1:{broker.openwire_port}, log {broker.log}; Ctrl-C stops it",
          flush=True)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        stop(broker)
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
