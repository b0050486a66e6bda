"""What the fault tests of every LLM-backed stage share (issue #33): a Redis of the
test's own that can be stopped and started again. The fixtures ``own_redis`` (the test
and its workers use such a Redis) and ``through_workers`` (tasks go through the broker
to a real worker) are in ``tests/reliability/conftest.py``."""

import shutil
import socket
import subprocess
import time

__all__ = ["Redis", "free_port"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Redis:
    """A redis-server of our own, persisting as docker-compose's does (append-only file),
    so a restart keeps the queue; fsync on every write, so the restart loses nothing."""

    def __init__(self, directory):
        self.port = free_port()
        self.dir = directory
        self.proc = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        self.proc = subprocess.Popen(
            [
                shutil.which("redis-server"),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--dir",
                str(self.dir),
            ],
            stdout=subprocess.DEVNULL,
        )
        for _ in range(100):
            if self.ping():
                return self
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def ping(self) -> bool:
        result = subprocess.run(
            ["redis-cli", "-p", str(self.port), "ping"], capture_output=True, text=True
        )
        return result.stdout.strip() == "PONG"

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: redis flushes the append-only file and exits
            self.proc.wait(timeout=20)
