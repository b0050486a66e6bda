"""Reading a stored report (the pages) and computing it (the worker).

A GET never computes the statistics: :func:`report_for` reads the stored row, works out
the fingerprint of the current inputs (a few cheap queries), and queues the computation
when nothing is stored or the stored figures were computed from other inputs.

A failed computation is not queued again by every GET: it is queued again as soon as its
inputs change, and otherwise once ``HEARTBENCH_REPORT_RETRY_SECONDS`` have passed since
the failed attempt was queued. A queued computation whose message the broker lost (a
Redis restart) is sent again by the workers' stranded-work sweep
(:func:`stranded_reports`, registered in ``celery_tasks``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from importlib import import_module

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.tasks import enqueue_on_commit

from .models import ReportStatus, StoredReport

TASK_NAME = "core.compute_stored_report"
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Inputs:
    """What a computation reads: ``identity`` is any JSON-able value that changes when
    an input changes (run ids, their last update, the seed); ``described`` says it in
    words for the page ("4 runs: 12, 13, 15, 16; seed 20240917")."""

    identity: object
    described: str

    @property
    def fingerprint(self) -> str:
        blob = json.dumps(self.identity, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()


@dataclass(frozen=True)
class Kind:
    inputs: Callable[[str], Inputs]
    compute: Callable[[str], object]  # key -> a JSON-able result


_KINDS: dict[str, Kind] = {}


def register(name: str, *, inputs: Callable[[str], Inputs], compute: Callable[[str], object]):
    _KINDS[name] = Kind(inputs=inputs, compute=compute)


def kind(name: str) -> Kind:
    """The registered kind; a process that has not imported its package's
    ``stored_reports`` module yet imports it now (the worker does so on first use)."""
    if name not in _KINDS:
        import_module(f"{name.rsplit('.', 1)[0]}.stored_reports")
    return _KINDS[name]


@dataclass(frozen=True)
class ReportView:
    """What a page shows: the stored figures (None before the first computation),
    whether they are older than their inputs, and the state of the computation."""

    row: StoredReport
    stale: bool

    @property
    def result(self):
        return self.row.result

    @property
    def ready(self) -> bool:
        return self.row.result is not None

    @property
    def computing(self) -> bool:
        return self.row.status in (ReportStatus.PENDING, ReportStatus.RUNNING)


def report_for(name: str, key: str = "") -> ReportView:
    """The stored report and whether it is stale; queues its computation when nothing
    is stored or the inputs changed since (once per set of inputs)."""
    current = kind(name).inputs(key)
    fingerprint = current.fingerprint
    with transaction.atomic():
        row, _ = StoredReport.objects.select_for_update().get_or_create(kind=name, key=key)
        stale = row.result is None or row.fingerprint != fingerprint
        queued = row.wanted_fingerprint == fingerprint and row.status in (
            ReportStatus.PENDING,
            ReportStatus.RUNNING,
        )
        if stale and not queued and not _backing_off(row, fingerprint):
            row.status = ReportStatus.PENDING
            row.wanted_fingerprint = fingerprint
            row.queued_at = timezone.now()
            row.save(update_fields=["status", "wanted_fingerprint", "queued_at"])
            enqueue_on_commit(TASK_NAME, name, key, what=f"The report {name}")
    return ReportView(row=row, stale=stale)


def _backing_off(row: StoredReport, fingerprint: str) -> bool:
    """A computation of these very inputs failed, and was queued less than the retry
    delay ago: asking again now would fail again on every request."""
    if row.status != ReportStatus.FAILED or row.wanted_fingerprint != fingerprint:
        return False
    delay = timedelta(seconds=settings.HEARTBENCH_REPORT_RETRY_SECONDS)
    return row.queued_at is not None and row.queued_at > timezone.now() - delay


def stranded_reports():
    """(kind, key, last queued) of every report queued and not taken by a worker yet: the
    stranded-work sweep (``core.tasks.resend_stranded``) sends again those whose message
    is not in the broker."""
    return StoredReport.objects.filter(
        status=ReportStatus.PENDING, queued_at__isnull=False
    ).values_list("kind", "key", "queued_at")


def _finite(value):
    """JSON has no NaN or infinity (PostgreSQL's jsonb refuses them): such a figure is
    stored as null, which the pages show as "no value"."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def compute_report(name: str, key: str = "") -> None:
    """Compute and store one report (the worker). The fingerprint is taken before the
    computation, so inputs that change meanwhile leave the result marked stale."""
    spec = kind(name)
    StoredReport.objects.filter(kind=name, key=key).update(status=ReportStatus.RUNNING)
    current = spec.inputs(key)
    try:
        result = _finite(json.loads(json.dumps(spec.compute(key), default=str)))
    except Exception as exc:
        StoredReport.objects.update_or_create(  # the row may not exist yet (the demo build)
            kind=name,
            key=key,
            defaults={"status": ReportStatus.FAILED, "error": f"{type(exc).__name__}: {exc}"},
        )
        logger.exception("The report %s [%s] failed", name, key)
        return
    StoredReport.objects.update_or_create(
        kind=name,
        key=key,
        defaults={
            "status": ReportStatus.DONE,
            "fingerprint": current.fingerprint,
            "inputs": current.described,
            "result": result,
            "computed_at": timezone.now(),
            "error": "",
        },
    )


def compute_if_stale(name: str, key: str = "") -> bool:
    """Compute the report in this process unless its stored figures are already those of
    the current inputs (the demo build, so that running it again changes nothing);
    whether it computed."""
    fingerprint = kind(name).inputs(key).fingerprint
    stored = StoredReport.objects.filter(kind=name, key=key, fingerprint=fingerprint)
    if stored.filter(result__isnull=False).exists():
        return False
    compute_report(name, key)
    return True
