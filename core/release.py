"""Where the authors' public release lives (``shared/heartbench-release`` beside the checkout).

``HEARTBENCH_RELEASE_DIR`` overrides it; otherwise the folder beside the checkout is used,
then the workplace's copy under /work/shared, so a clone elsewhere (CI) still finds it.
"""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = (
    ROOT.parent / "shared" / "heartbench-release",
    Path("/work/shared/heartbench-release"),
)


def find_release_dir() -> Path:
    override = os.environ.get("HEARTBENCH_RELEASE_DIR")
    if override:
        return Path(override)
    for candidate in CANDIDATES:
        if candidate.is_dir():
            return candidate
    return CANDIDATES[0]
