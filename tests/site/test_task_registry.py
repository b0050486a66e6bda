"""Every task the platform defines is registered wherever it runs: each ``celery_tasks``
module in the tree is one of the Celery app's task modules, and a real worker started the
way production starts it (``CELERY_SKIP_CHECKS=1``: no Django checks importing the URLconf
on the side) lists every ``@shared_task`` name found in the source."""

import re
import signal
from pathlib import Path

import pytest

from heartbench_site.celery import TASK_MODULES, TASK_PACKAGES, app
from tests.conftest import _start_celery_worker, _stop_celery_worker

ROOT = Path(__file__).resolve().parents[2]
SKIP = {".venv", ".build", "node_modules", "tests", ".git"}
SHARED_TASK = re.compile(r"@shared_task\(\s*name=\"([^\"]+)\"")


def source_files():
    for path in ROOT.rglob("*.py"):
        if not SKIP.intersection(path.relative_to(ROOT).parts):
            yield path


def task_module_packages() -> set[str]:
    return {
        ".".join(path.relative_to(ROOT).parent.parts)
        for path in source_files()
        if path.name == "celery_tasks.py"
    }


def defined_task_names() -> set[str]:
    return {name for path in source_files() for name in SHARED_TASK.findall(path.read_text())}


def test_every_celery_tasks_module_in_the_tree_is_a_task_package():
    assert task_module_packages() == set(TASK_PACKAGES)
    assert len(TASK_PACKAGES) == len(set(TASK_PACKAGES))


def test_every_task_defined_in_the_tree_is_registered_by_the_apps_task_modules():
    from core.tasks import registered_task

    names = defined_task_names()
    assert "heartbench_site.resend_stranded" in names and len(names) > 10
    for name in names:
        assert registered_task(name).name == name
    defined_in = {app.tasks[name].__module__ for name in names}
    assert defined_in <= set(TASK_MODULES), defined_in - set(TASK_MODULES)


@pytest.mark.worker
def test_a_worker_that_skips_djangos_checks_registers_every_task():
    proc, log_path = _start_celery_worker(extra_env={"CELERY_SKIP_CHECKS": "1"}, name="registry")
    try:
        banner = log_path.read_text().split("[tasks]", 1)[1]
    finally:
        proc.send_signal(signal.SIGTERM)
        _stop_celery_worker(proc)
    listed = set(re.findall(r"^\s+\. (\S+)$", banner, flags=re.MULTILINE))
    missing = defined_task_names() - listed
    assert not missing, f"the worker did not register {sorted(missing)}"
