"""agreement/ is a pure core: importing it loads no Django (STYLE.md "A pure core")."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_agreement_loads_no_web_framework():
    code = (
        "import sys, agreement; "
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & "
        "{'django', 'rest_framework', 'celery', 'annotation', 'adjudication', "
        "'humanbaseline', 'audit', 'evaluation'}); "
        "print(','.join(loaded))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert result.stdout.strip() == ""
