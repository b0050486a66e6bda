"""The observer pages (issue 37): admins only; the launch form refuses a bad budget and
names the problem; the report page shows the stored figures and the flag; the run list
reads a constant number of queries."""

from decimal import Decimal

import pytest
from django.urls import reverse

from audit.observers.models import ObserverRating, ObserverRun, ObserverUnit
from audit.observers.stored_reports import KIND, key_for
from core.reports.services import compute_report
from core.roles import Role
from tests.factories import UserFactory

from .helpers import character_written_for, inventory, vector

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(client):
    client.force_login(UserFactory(username="lab-admin", roles=[Role.ADMIN]))
    return client


def finished_run(ratings: dict[str, int]) -> ObserverRun:
    """A finished run on one N-high character rated by one observer with ``ratings``."""
    form = inventory()
    character, profile = character_written_for("CHAR_03", vector(N=0.95), audit=False)
    run = ObserverRun.objects.create(
        inventory=form,
        seed=5,
        families=["claude"],
        prompt_version="observer-1",
        status=ObserverRun.Status.FINISHED,
    )
    unit = ObserverUnit.objects.create(
        run=run,
        character=character,
        profile_version=profile,
        observer="claude",
        material=["x"],
        status=ObserverUnit.Status.SUCCEEDED,
    )
    ObserverRating.objects.bulk_create(
        ObserverRating(
            unit=unit,
            item_id=item["id"],
            trait=item["trait"],
            keying=item["keying"],
            value=ratings.get(item["id"], 3),
        )
        for item in form.items
    )
    return run


def urls(run_id):
    kwargs = {"observer_run_id": run_id}
    return [
        ("get", reverse("audit:observers:runs")),
        ("get", reverse("audit:observers:inventories")),
        ("get", reverse("audit:observers:launch")),
        ("get", reverse("audit:observers:run", kwargs=kwargs)),
        ("get", reverse("audit:observers:report", kwargs=kwargs)),
        ("post", reverse("audit:observers:cancel", kwargs=kwargs)),
        ("post", reverse("audit:observers:resume", kwargs=kwargs)),
    ]


@pytest.mark.parametrize("role", [r for r in Role if r != Role.ADMIN])
def test_no_role_but_admin_reaches_the_observer_pages(client, role):
    run = finished_run({})
    client.force_login(UserFactory(roles=[role]))
    for method, url in urls(run.pk):
        assert getattr(client, method)(url).status_code == 403, (role, url)
    client.logout()
    for method, url in urls(run.pk):
        answer = getattr(client, method)(url)
        assert answer.status_code == 302 and "/login" in answer["Location"], url


def test_the_admin_reaches_them(admin):
    run = finished_run({})
    for _method, url in urls(run.pk)[:5]:
        assert admin.get(url).status_code == 200, url


@pytest.mark.parametrize(
    ("budget", "message"),
    [
        ("0", "greater than or equal to 0.01"),
        ("-3", "greater than or equal to 0.01"),
        ("ten dollars", "Enter a number."),
    ],
)
def test_the_launch_page_refuses_a_bad_budget(admin, observer_families, budget, message):
    form = inventory()
    character, _ = character_written_for("CHAR_01", vector(E=0.95))
    answer = admin.post(
        reverse("audit:observers:launch"),
        {
            "inventory": form.pk,
            "characters": [character.pk],
            "families": ["claude"],
            "target": "memories",
            "sample_size": 4,
            "seed": 1,
            "budget_usd": budget,
        },
    )
    assert answer.status_code == 200
    assert message in answer.content.decode()
    assert not ObserverRun.objects.exists()


def test_the_launch_page_creates_a_run_with_a_good_budget(admin, observer_families):
    form = inventory()
    character, _ = character_written_for("CHAR_01", vector(E=0.95))
    answer = admin.post(
        reverse("audit:observers:launch"),
        {
            "inventory": form.pk,
            "characters": [character.pk],
            "families": ["claude", "gpt"],
            "target": "memories",
            "sample_size": 4,
            "seed": 1,
            "budget_usd": "2.50",
        },
    )
    run = ObserverRun.objects.get()
    assert answer.status_code == 302 and answer["Location"].endswith(f"/{run.pk}/")
    assert str(run.budget_usd) == "2.50" and run.units.count() == 2
    assert sorted(run.units.values_list("observer", flat=True)) == ["claude", "gpt"]


def test_a_character_without_material_is_named(admin, observer_families):
    form = inventory()
    character, _ = character_written_for("CHAR_01", vector(E=0.95))
    answer = admin.post(
        reverse("audit:observers:launch"),
        {
            "inventory": form.pk,
            "characters": [character.pk],
            "families": ["claude"],
            "target": "references",
            "sample_size": 4,
            "seed": 1,
        },
    )
    assert "CHAR_01 has no references" in answer.content.decode()
    assert not ObserverRun.objects.exists()


def test_the_report_page_shows_the_stored_figures_and_the_flag(admin):
    # The observer agrees with every N statement's opposite: N reads low, flagged.
    run = finished_run({"N1": 1, "N2": 2, "N3": 5})
    page = admin.get(reverse("audit:observers:report", kwargs={"observer_run_id": run.pk}))
    assert 'data-state="pending"' in page.content.decode()  # a GET computes nothing
    compute_report(KIND, key_for(run.pk))
    text = admin.get(
        reverse("audit:observers:report", kwargs={"observer_run_id": run.pk})
    ).content.decode()
    assert 'data-state="fresh"' in text
    assert "Not recovered: observed mean at or below 0.5" in text
    # N observed = mean of (1-1)/4, (2-1)/4, (5 reversed = 1 → 0)/4 = 0.0833
    assert "0.95 → <strong>0.08</strong>" in text
    assert "Character 3" in text and "CHAR_03" not in text
    # One character: no pair to compare, and the page says so rather than drawing a table.
    assert 'data-testid="observed-distinctness-summary"' in text
    assert (
        "<strong>0</strong> of 0 pairs" in text
        and 'data-testid="observed-distinctness"' not in text
    )


def test_the_run_list_reads_a_constant_number_of_queries(admin, django_assert_max_num_queries):
    finished_run({})
    url = reverse("audit:observers:runs")
    with django_assert_max_num_queries(12):
        assert admin.get(url).status_code == 200
    base = ObserverRun.objects.get()
    for _ in range(6):
        ObserverRun.objects.create(
            inventory=base.inventory, families=["claude"], prompt_version="observer-1"
        )
    with django_assert_max_num_queries(12):
        assert "Observer run" in admin.get(url).content.decode()


def stopped_run(budget="0.01") -> tuple[ObserverRun, ObserverUnit]:
    """A run stopped at its budget: one observer has spent more than it, one waits."""
    run = finished_run({})
    unit = run.units.get()
    ObserverUnit.objects.filter(pk=unit.pk).update(cost_usd=Decimal("0.02"))
    waiting = ObserverUnit.objects.create(
        run=run,
        character=unit.character,
        profile_version=unit.profile_version,
        observer="gpt",
        material=["x"],
        status=ObserverUnit.Status.PENDING,
    )
    ObserverRun.objects.filter(pk=run.pk).update(
        status=ObserverRun.Status.STOPPED_AT_BUDGET,
        budget_usd=Decimal(budget),
        stop_reason="Stopped at its budget.",
    )
    return run, waiting


def test_a_resume_with_a_spent_budget_is_refused_on_the_page(admin):
    run, _waiting = stopped_run()
    url = reverse("audit:observers:resume", kwargs={"observer_run_id": run.pk})
    page = admin.post(url, {"budget_usd": "0.01"})
    assert page.status_code == 200
    assert "would stop again at once" in page.content.decode()
    run.refresh_from_db()
    assert run.status == ObserverRun.Status.STOPPED_AT_BUDGET


def test_a_resume_without_a_budget_queues_the_waiting_observer(
    admin, django_capture_on_commit_callbacks
):
    run, waiting = stopped_run()
    url = reverse("audit:observers:resume", kwargs={"observer_run_id": run.pk})
    with django_capture_on_commit_callbacks(execute=False) as queued:
        answer = admin.post(url, {"budget_usd": ""})
    assert answer.status_code == 302
    assert answer.url == reverse("audit:observers:run", kwargs={"observer_run_id": run.pk})
    run.refresh_from_db()
    assert run.status == ObserverRun.Status.RUNNING and run.budget_usd is None
    assert len(queued) == 1
