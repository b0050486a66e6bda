"""`python -m llm.testing.fake_server` serves schema-valid demo JSON to a real client."""

import os
import re
import subprocess
import sys
from pathlib import Path

from llm import ProviderConfig, make_client

from .helpers import CANDIDATE_SCHEMA, SYSTEM, USER

ROOT = Path(__file__).resolve().parents[2]


def test_standalone_server_answers_every_format():
    proc = subprocess.Popen(
        [sys.executable, "-m", "llm.testing.fake_server", "--port", "0", "--latency-ms", "5"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert match, line
        url = match.group(0)
        bases = {
            "anthropic": url,
            "openai": f"{url}/v1",
            "openai_compatible": f"{url}/compat/v1",
            "gemini": url,
        }
        for kind, base in bases.items():
            client = make_client(ProviderConfig(kind=kind, model="m", base_url=base))
            result = client.complete_json(system=SYSTEM, user=USER, schema=CANDIDATE_SCHEMA)
            client.close()
            assert result.ok, (kind, result.failure_reason)
            assert set(result.parsed) >= set(CANDIDATE_SCHEMA["required"])
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert proc.returncode == 0
    assert "stopped after 4 requests" in out
