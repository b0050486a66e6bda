"""`make demo` takes a port (issue #36): `make demo PORT=8001` hands it to scripts/demo.sh,
which serves that port and says so; a port already in use is named, with how to choose
another, before anything is migrated."""

import os
import socket
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def demo(port: str, tmp_path: Path) -> subprocess.CompletedProcess:
    database = tmp_path / "demo.sqlite3"
    return subprocess.run(
        [str(ROOT / "scripts" / "demo.sh")],
        env={**os.environ, "PORT": port, "DATABASE_URL": f"sqlite:///{database}"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_port_in_use_is_named_before_anything_is_migrated(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        done = demo(port, tmp_path)
    assert done.returncode == 1
    assert f"Port {port} on 127.0.0.1 is already in use" in done.stderr
    assert "make demo PORT=" in done.stderr
    assert not (tmp_path / "demo.sqlite3").exists(), "the demo migrated before checking"
    assert "Operations to perform" not in done.stdout


def test_a_port_that_is_not_a_number_is_refused(tmp_path):
    done = demo("eighty", tmp_path)
    assert done.returncode == 2
    assert "PORT=eighty is not a port number" in done.stderr


def make_demo_dry_run(*arguments: str) -> str:
    """The commands `make demo` would run, without running them."""
    env = {k: v for k, v in os.environ.items() if k != "PORT"}
    done = subprocess.run(
        ["make", "-n", "demo", *arguments], cwd=ROOT, env=env, capture_output=True, text=True
    )
    return done.stdout


def test_make_demo_hands_its_port_to_the_script():
    assert "PORT=8123 scripts/demo.sh" in make_demo_dry_run("PORT=8123")
    assert "PORT=8000 scripts/demo.sh" in make_demo_dry_run()
    script = (ROOT / "scripts" / "demo.sh").read_text()
    assert 'runserver "127.0.0.1:$port"' in script
    assert "Open http://127.0.0.1:$port/" in script
