"""``import llm`` stays light: the offline demo provider and its ~2,000 lines of answer
text (``llm.demo``) load only when a config selects it."""

import json
import subprocess
import sys
from pathlib import Path

from llm import ProviderConfig, make_client

ROOT = Path(__file__).resolve().parents[2]


def llm_modules_after(code: str) -> list[str]:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            f"{code}\nimport json, sys\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('llm'))))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def test_import_llm_loads_no_demo_module():
    modules = llm_modules_after("import llm")
    assert "llm.client" in modules
    assert not [m for m in modules if m.startswith("llm.demo")], modules


def test_the_offline_config_loads_the_demo_client():
    modules = llm_modules_after(
        "import llm; llm.make_client(llm.ProviderConfig(kind='offline_demo', model='m'))"
    )
    assert "llm.demo.client" in modules


def test_make_client_gives_the_offline_demo_client_for_its_kind():
    from llm.demo import OfflineDemoClient

    client = make_client(ProviderConfig(kind="offline_demo", model="offline-demo"))
    assert isinstance(client, OfflineDemoClient)
