"""The rehearsal's judge run (issue 22): once the pairs are judged and arbitrated, the
admin asks an LLM judge to do the annotators' task on every pair and reads its
calibration report, through the pages and a real worker (which also computes the
report's figures), as a lab would."""

import csv
import io
import re

from tests.rehearsal.steps import Lab, wait_html


def judge_with_an_llm(lab: Lab, worker) -> dict[tuple[str, str], str]:
    """Launch a judge run in two candidate orders on every fully judged pair, wait for
    it, and return the report's CSV as {(section, figure): estimate}."""
    admin = lab["admin"]
    answer = admin.fill(
        "/judging/runs/new/",
        {"name": "rehearsal judge", "provider_family": "gpt", "orders_per_pair": "2"},
        id="judge-run-form",
        button="Launch judge run",
    )
    run_id = int(re.search(r"/judging/runs/(\d+)/", answer.url).group(1))
    page = wait_html(
        admin, f"/judging/runs/{run_id}/", 'data-status="finished"', "the judge run", worker
    )
    assert f"/judging/runs/{run_id}/report/" in page
    # The report's figures are computed once on the worker: the first visit queues them
    # and the page shows them once they are stored (the lab's browser polls the same way).
    wait_html(
        admin,
        f"/judging/runs/{run_id}/report/",
        'data-state="fresh"',
        "the calibration report's figures",
        worker,
    )
    table = admin.get(f"/judging/runs/{run_id}/report.csv")
    rows = list(csv.DictReader(io.StringIO(table.text)))
    return {(row["section"], row["figure"]): row["estimate"] for row in rows}
