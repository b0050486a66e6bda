"""The rehearsal's judge run (issue 22): once the pairs are judged and arbitrated, the
admin asks an LLM judge to do the annotators' task on every pair and reads its
calibration report, through the pages and a real worker, as a lab would."""

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
    report = admin.get(f"/judging/runs/{run_id}/report/")
    assert report.status_code == 200
    table = admin.get(f"/judging/runs/{run_id}/report.csv")
    rows = list(csv.DictReader(io.StringIO(table.text)))
    return {(row["section"], row["figure"]): row["estimate"] for row in rows}
