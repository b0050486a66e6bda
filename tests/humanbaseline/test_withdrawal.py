"""Participants' rights (issue #36): a participant withdraws from the study pages; from
then on their answers are in no report, statistic or export, the report's figures equal a
recomputation from the stored answers without them, and they can answer no more."""

import csv
import io
import time

import numpy as np
import pyarrow.parquet as pq
import pytest
from django.urls import reverse
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from adjudication.export.statistics import statistics_files
from heartbench_site.pipeline.evaluation import baseline_stage
from humanbaseline import services
from humanbaseline.models import (
    BaselineError,
    BaselineReport,
    ItemResponse,
    Participation,
    SelectionItem,
    StudyItem,
)

from .conftest import enrol, make_study

SEED = 20261207
# How often each participant picks the key, by the order of their items: the one who
# withdraws answers every item wrongly, so a report that still counted them would differ.
ACCURACY = {"p-ada": 0.9, "p-bo": 0.75, "p-cy": 0.6, "p-dee": 0.0}


def wrong(key: str) -> str:
    return "ABCD"[("ABCD".index(key) + 1) % 4]


def answer_and_finalize(p, share: float):
    responses = list(
        ItemResponse.objects.filter(participation=p)
        .select_related("study_item__item")
        .order_by("position")
    )
    n_right = round(share * len(responses))
    for n, response in enumerate(responses):
        key = response.study_item.item.correct_answer
        services.answer_save(
            participation=p, position=response.position, choice=key if n < n_right else wrong(key)
        )
    return services.baseline_finalize(participation=p)


def build_study():
    study, _, _ = make_study(n_items=12, n_practice=1, n_characters=4)
    people = {
        name: answer_and_finalize(enrol(study, name), share) for name, share in ACCURACY.items()
    }
    return study, people


def recomputed(study, people):
    """Mean accuracy, per-participant accuracy and Fleiss' kappa from the stored answers
    of the participants who did not withdraw, computed here from the rows."""
    study_items = list(
        StudyItem.objects.filter(study=study, is_practice=False)
        .select_related("item")
        .order_by("position")
    )
    kept = [p for p in people if Participation.objects.get(pk=p.pk).withdrawn_at is None]
    matrix = np.array(
        [
            [ItemResponse.objects.get(participation=p, study_item=si).choice for p in kept]
            for si in study_items
        ]
    )
    keys = np.array([si.item.correct_answer for si in study_items])
    correct = matrix == keys[:, None]
    codes = np.vectorize("ABCD".index)(matrix)
    families = dict(SelectionItem.objects.values_list("item_id", "family"))
    sources = np.array([families[si.item_id] for si in study_items])
    return {
        "mean": correct.mean(),
        "per_person": list(correct.mean(axis=0)),
        "kappa": fleiss_kappa(aggregate_raters(codes, n_cat=4)[0]),
        "per_source": {s: correct[sources == s].mean() for s in set(sources)},
        "n": len(kept),
    }


def wait_done(study, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        latest = BaselineReport.objects.filter(study=study).order_by("-created_at", "-pk").first()
        if latest.status in ("done", "failed"):
            return latest
        time.sleep(0.2)
    raise AssertionError(f"report {latest.pk} still {latest.status}")


def export_rows(study, client):
    """The report's rows as every export carries them: the report CSV, the tidy table as
    CSV and Parquet, and the statistics export's baseline files."""
    out = {}
    text = client.get(reverse("baseline:report-csv", args=[study.pk])).content.decode()
    out["report.csv"] = {
        r["statistic"]: float(r["estimate"]) for r in csv.DictReader(io.StringIO(text))
    }
    table_url = reverse("baseline:report-table", args=[study.pk])
    text = client.get(table_url, {"format": "csv"}).content.decode()
    out["table.csv"] = {
        r["statistic"]: float(r["estimate"]) for r in csv.DictReader(io.StringIO(text))
    }
    parquet = client.get(table_url, {"format": "parquet"}).content
    rows = pq.read_table(io.BytesIO(parquet)).to_pylist()
    out["table.parquet"] = {r["statistic"]: r["estimate"] for r in rows}
    files = statistics_files()
    rows = pq.read_table(io.BytesIO(files["baseline_report.parquet"])).to_pylist()
    out["statistics export"] = {
        r["statistic"]: r["estimate"] for r in rows if r["study_id"] == study.pk
    }
    return out


def test_a_withdrawn_participants_answers_leave_every_report_and_export(
    celery_worker_process, role_groups, admin_user, client
):
    study, people = build_study()
    everyone = list(people.values())
    before = recomputed(study, everyone)
    client.force_login(admin_user)
    client.post(
        reverse("baseline:report", args=[study.pk]),
        {"seed": SEED, "n_boot": 300, "n_permutations": 300},
    )
    first = wait_done(study)
    assert first.status == "done", first.error
    assert first.results["n_annotators"] == 4
    assert first.results["mean_accuracy"]["estimate"] == pytest.approx(before["mean"])

    # Dee withdraws from the study pages (twice: a double submit is harmless).
    dee = people["p-dee"]
    client.force_login(dee.user)
    page = client.get(reverse("baseline:finalize", args=[study.pk])).content.decode()
    assert reverse("baseline:withdraw", args=[study.pk]) in page
    for _ in range(2):
        response = client.post(reverse("baseline:withdraw", args=[study.pk]))
        assert response.status_code == 302
    dee.refresh_from_db()
    assert dee.status == Participation.Status.WITHDRAWN and dee.withdrawn_at is not None
    assert Participation.history.filter(id=dee.pk, status="withdrawn").count() == 1

    # The report that counted her is set aside, and a new one is computed on the worker.
    first.refresh_from_db()
    assert first.status == "failed" and first.results == {} and "withdrew" in first.error
    report = wait_done(study)
    assert report.pk != first.pk and report.status == "done", report.error
    assert (report.seed, report.n_boot) == (SEED, 300)

    after = recomputed(study, everyone)
    assert after["n"] == 3 and after["mean"] != pytest.approx(before["mean"])
    r = report.results
    assert r["n_annotators"] == 3
    assert r["mean_accuracy"]["estimate"] == pytest.approx(after["mean"])
    assert list(r["per_annotator"].values()) == pytest.approx(after["per_person"])
    # Participants are named by their number in the study: Dee was the fourth.
    assert list(r["per_annotator"]) == ["1", "2", "3"]
    assert r["fleiss_kappa"]["estimate"] == pytest.approx(after["kappa"])
    assert r["per_source"] == pytest.approx(after["per_source"])

    # Every export carries the new figures, and none names a participant.
    client.force_login(admin_user)
    for name, rows in export_rows(study, client).items():
        assert rows["mean annotator accuracy"] == pytest.approx(after["mean"], abs=1e-6), name
        assert sorted(k for k in rows if k.startswith("annotator ")) == [
            "annotator 1",
            "annotator 2",
            "annotator 3",
        ], name
    detail = client.get(reverse("baseline:study-detail", args=[study.pk])).content.decode()
    assert "answers set aside" in detail
    # The pipeline counts three finalized participants, not four.
    tally = {t.label: t.value for t in baseline_stage().tallies}
    assert tally["participants finalized"] == 3


def test_a_withdrawn_participant_can_answer_no_more(small_study, client):
    study, _, _ = small_study
    p = enrol(study, "p-leaves")
    services.answer_save(participation=p, position=1, choice="B")
    client.force_login(p.user)
    for name, args in [
        ("consent", []),
        ("briefing", []),
        ("practice", [1]),
        ("item", [1]),
        ("finalize", []),
    ]:
        page = client.get(reverse(f"baseline:{name}", args=[study.pk, *args]), follow=True)
        assert 'data-testid="withdraw-link"' in page.content.decode(), name
    confirm = client.get(reverse("baseline:withdraw", args=[study.pk])).content.decode()
    # The confirmation says what happens to the answers, in the consent page's words.
    terms = confirm.split('data-testid="withdrawal-terms">')[1].split("</p>")[0]
    assert "answers are set aside" in terms
    newcomer = enrol(study, "p-newcomer", consent=False)
    client.force_login(newcomer.user)
    consent = client.get(reverse("baseline:consent", args=[study.pk]))
    client.force_login(p.user)
    client.post(reverse("baseline:withdraw", args=[study.pk]))
    p.refresh_from_db()
    assert p.status == "withdrawn"
    # Every study page now leads to the withdrawal page; nothing more is saved.
    for name, args in [("study", []), ("item", [1]), ("practice", [1]), ("briefing", [])]:
        response = client.get(reverse(f"baseline:{name}", args=[study.pk, *args]))
        assert response.url == reverse("baseline:withdraw", args=[study.pk]), name
    client.post(reverse("baseline:item", args=[study.pk, 1]), {"choice": "D"})
    assert ItemResponse.objects.get(participation=p, position=1).choice == "B"
    response = client.post(reverse("baseline:item-time", args=[study.pk, 1]), {"seconds": "5"})
    assert response.status_code == 400
    with pytest.raises(BaselineError, match="withdrawn"):
        services.practice_answer(participation=p, position=1, choice="A")
    page = client.get(reverse("baseline:withdraw", args=[study.pk])).content.decode()
    assert 'data-testid="withdrawn"' in page and 'data-testid="withdraw-link"' not in page
    assert consent.status_code == 200 and terms in consent.content.decode()


NAMED = {"username": "p-nameable-quokka", "pool_id": "pid5f9quokka", "session": "sessquokka9"}


def export_files(study, client) -> dict[str, str]:
    """Every file a download or an export makes of the study, as text: the report's CSV,
    tidy table (CSV, Parquet read back) and plots (SVG), the API's report, the statistics
    export and the final-set export bundle."""
    from adjudication.export.services import build_export
    from humanbaseline.presentation import report_plots

    def readable(name, body: bytes) -> str:
        if name.endswith(".parquet"):
            return str(pq.read_table(io.BytesIO(body)).to_pylist())
        return body.decode("utf-8", errors="replace")

    files = {
        "report.csv": client.get(reverse("baseline:report-csv", args=[study.pk])).content,
        "api report": client.get(reverse("baseline-api:report", args=[study.pk])).content,
    }
    table_url = reverse("baseline:report-table", args=[study.pk])
    for fmt in ("csv", "parquet"):
        files[f"report table.{fmt}"] = client.get(table_url, {"format": fmt}).content
    latest = BaselineReport.objects.filter(study=study).latest("created_at")
    for plot in report_plots(latest.results):
        url = reverse("baseline:report-plot", args=[study.pk, plot, "svg"])
        files[f"plot {plot}.svg"] = client.get(url).content
    files |= {f"statistics/{k}": v for k, v in statistics_files().items()}
    files |= {f"export/{k}": v for k, v in build_export().files.items()}
    return {name: readable(name, body) for name, body in files.items()}


def test_no_export_carries_a_participants_username_or_pool_id(role_groups, admin_user, client):
    study, _, _ = make_study(n_items=4, n_practice=1, n_characters=4)
    named = enrol(study, NAMED["username"])
    Participation.objects.filter(pk=named.pk).update(
        pool="prolific", pool_id=NAMED["pool_id"], pool_session_id=NAMED["session"]
    )
    for p in (named, enrol(study, "p-other")):
        answer_and_finalize(p, 0.5)
    report = services.report_request(
        study=study, user=admin_user, seed=1, n_boot=50, n_permutations=50
    )
    assert services.report_compute(report_id=report.pk).status == "done"
    client.force_login(admin_user)
    files = export_files(study, client)
    assert len(files) > 20 and "annotator 1" in files["report.csv"]
    leaks = sorted(
        (name, value)
        for name, text in files.items()
        for value in (*NAMED.values(), "p-other")
        if value in text
    )
    assert leaks == []
    # The control: the admin's payment sheet does carry the pool id (it is for paying).
    sheet = client.get(reverse("baseline:time-csv", args=[study.pk])).content.decode()
    assert NAMED["pool_id"] in sheet
