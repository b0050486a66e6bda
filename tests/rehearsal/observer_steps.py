"""The rehearsal's observer check (issue 37): once the memory audit is finalized, the
admin loads the shipped inventory and asks every generation family, as an observer, to
rate the drafted character from a sample of its audited memories, through the pages and
a real worker (which also computes the report). The fake provider answers observer
prompts with its own observer, which reads only the memories' text."""

import re

import numpy as np

from annotation.corpus.models import Character
from audit.observers.demo import SHORT_FORM
from audit.observers.models import ObserverRun, ObserverUnit
from audit.observers.sampling import shown_texts
from llm.testing import observer_replies
from llm.testing.observer_replies import ObserverResponder

from .steps import DRAFTED, DRAFTED_ANCHOR, Lab, wait_html


def observe_the_drafted_character(lab: Lab, worker, fake_provider) -> ObserverRun:
    admin = lab["admin"]
    answer = admin.fill(
        "/audit/observers/inventories/",
        id="inventory-form",
        button="Load inventory",
        files={"file": (SHORT_FORM.name, SHORT_FORM.read_bytes(), "application/json")},
    )
    assert "with 15 items" in answer.text, answer.text[-2000:]
    drafted = Character.objects.get(key=DRAFTED)
    previous = fake_provider.responder
    fake_provider.responder = ObserverResponder(fallback=previous)
    try:
        answer = admin.fill(
            "/audit/observers/new/",
            {"characters": [drafted.pk], "sample_size": "6"},
            id="observer-run-form",
            button="Launch observer run",
        )
        run_id = int(re.search(r"/audit/observers/(\d+)/", answer.url).group(1))
        page = wait_html(
            admin, f"/audit/observers/{run_id}/", 'data-status="finished"', "observers", worker
        )
    finally:
        fake_provider.responder = previous
    assert f"/audit/observers/{run_id}/report/" in page
    report = wait_html(
        admin,
        f"/audit/observers/{run_id}/report/",
        'data-state="fresh"',
        "the observer report",
        worker,
    )
    run = ObserverRun.objects.get(pk=run_id)
    units = list(ObserverUnit.objects.filter(run=run).order_by("observer"))
    assert [u.observer for u in units] == ["claude", "gemini", "gpt"]
    items = {item["id"]: item["text"] for item in run.inventory.items}
    c_scores = []
    for unit in units:
        assert unit.status == "succeeded" and len(unit.material) == 6
        # The stored ratings are the fake observer's answer to exactly the memories the
        # unit records as shown (their text only).
        passages = "\n".join(p.text for p in shown_texts("memories", unit.material))
        stored = dict(unit.ratings.values_list("item_id", "value"))
        assert stored == observer_replies.rate(passages, items, 1, 5), unit.observer
        for rating in unit.ratings.filter(trait="C"):
            value = rating.value if rating.keying == "+" else 6 - rating.value
            c_scores.append((value - 1) / 4)
    # The drafted character's anchor (C low) is shown, flagged exactly when the stated
    # rule says so: its C mean must lie below 0.5, with its whole CI.
    assert f">{DRAFTED_ANCHOR}<" in report
    mean = float(np.mean(c_scores))
    assert f"<strong>{mean:.2f}</strong>".replace("-", "−") in report
    if mean >= 0.5:
        assert "Not recovered: observed mean at or above 0.5" in report
    return run
