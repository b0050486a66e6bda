"""Human observers (issue 37): the admin asks people holding the observer role (anyone
else is refused by name); an observer reaches only their own tasks, named "Person N",
and nothing of the corpus, the profiles, the reports or other people's tasks; a draft
keeps the answers; a submission needs every statement, is final, and its ratings join
the run's report, which is queued again."""

import numpy as np
import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.corpus.models import Memory
from audit.observers import human, services
from audit.observers.models import ObserverRating, ObserverRun, ObserverUnit
from audit.observers.stored_reports import KIND, key_for
from core.reports.models import ReportStatus, StoredReport
from core.reports.services import compute_report, kind
from core.roles import CORPUS_READERS, Role
from tests.factories import UserFactory

from .human_helpers import LABELS, answers, finished_run, observer, secrets

pytestmark = pytest.mark.django_db

HUMAN = ObserverUnit.Kind.HUMAN


@pytest.fixture
def admin(client):
    client.force_login(UserFactory(username="lab-admin", roles=[Role.ADMIN]))
    return client


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def people_url(run):
    return reverse("audit:observers:people", kwargs={"observer_run_id": run.pk})


def task_url(unit_id):
    return reverse("audit:observers:task", kwargs={"task_id": unit_id})


# --- the role ----------------------------------------------------------------------------


def test_the_observer_role_reads_no_corpus():
    assert Role.OBSERVER not in CORPUS_READERS
    assert Role.OBSERVER.label == "Observer"


# --- asking people -----------------------------------------------------------------------


def test_the_admin_asks_observers_and_each_gets_the_models_material(admin):
    run = finished_run()
    ana, ben = observer("obs-ana"), observer("obs-ben")
    page = admin.get(people_url(run)).content.decode()
    assert 'data-confirm="Ask these people to rate?' in page
    answer = admin.post(people_url(run), {"people": [ana.pk, ben.pk]})
    assert answer.status_code == 302
    models = {u.character_id: u for u in run.units.filter(observer_kind="llm")}
    people = run.units.filter(observer_kind=HUMAN)
    assert people.count() == 4  # two characters × two people
    for unit in people:
        assert unit.material == models[unit.character_id].material
        assert unit.profile_version_id == models[unit.character_id].profile_version_id
        assert unit.status == ObserverUnit.Status.PENDING
    # Asked again: nothing doubles.
    admin.post(people_url(run), {"people": [ana.pk]})
    assert run.units.filter(observer_kind=HUMAN).count() == 4


def test_a_person_without_the_role_is_refused_by_name(admin):
    run = finished_run()
    ana = observer("obs-ana")
    carl = UserFactory(username="carl-annotator", roles=[Role.PRIMARY_ANNOTATOR])
    page = admin.post(people_url(run), {"people": [ana.pk, carl.pk]})
    assert page.status_code == 200
    text = page.content.decode()
    assert "carl-annotator does not hold the observer role" in text
    assert "carl-annotator (not an observer)" in text  # the choice said so beforehand
    assert not run.units.filter(observer_kind=HUMAN).exists()


def test_a_run_not_finished_cannot_take_people(admin):
    run = finished_run()
    ObserverRun.objects.filter(pk=run.pk).update(status=ObserverRun.Status.RUNNING)
    with pytest.raises(services.ObserverRunError, match="once its model observers"):
        human.human_observers_assign(run_id=run.pk, users=[observer()])
    assert 'data-testid="not-assignable"' in admin.get(people_url(run)).content.decode()


def test_failed_model_units_wait_while_a_person_rates(admin):
    run = finished_run()
    human.human_observers_assign(run_id=run.pk, users=[observer()])
    ObserverRun.objects.filter(pk=run.pk).update(status=ObserverRun.Status.FINISHED_WITH_FAILURES)
    run.units.filter(observer_kind="llm").update(status=ObserverUnit.Status.FAILED)
    with pytest.raises(services.ObserverRunError, match="people's tasks still open"):
        services.observer_run_resume(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == ObserverRun.Status.FINISHED_WITH_FAILURES


def test_a_worker_never_takes_a_persons_task():
    run = finished_run()
    unit = human.human_observers_assign(run_id=run.pk, users=[observer()])[0]
    ObserverRun.objects.filter(pk=run.pk).update(status=ObserverRun.Status.RUNNING)
    services.observer_unit_execute(unit_id=unit.pk)  # a stranded-work resend, say
    unit.refresh_from_db()
    assert unit.status == ObserverUnit.Status.PENDING and unit.calls.count() == 0


# --- the observer's reach ----------------------------------------------------------------


def test_an_observer_reaches_only_their_own_tasks():
    run = finished_run()
    ana, ben = observer("obs-ana"), observer("obs-ben")
    human.human_observers_assign(run_id=run.pk, users=[ana, ben])
    own = list(human.own_tasks(ana).values_list("pk", flat=True))
    other = list(human.own_tasks(ben).values_list("pk", flat=True))
    client = signed_in(ana)
    listing = client.get(reverse("audit:observers:tasks")).content.decode()
    assert "Person 1" in listing and "Person 2" in listing and "Person 3" not in listing
    for unit_id in own:
        assert client.get(task_url(unit_id)).status_code == 200
    for unit_id in other + list(run.units.filter(observer_kind="llm").values_list("pk", flat=True)):
        assert client.get(task_url(unit_id)).status_code == 404
        draft = reverse("audit:observers:task-draft", kwargs={"task_id": unit_id})
        assert client.post(draft, {"s1": "3"}).status_code == 404
        assert client.post(task_url(unit_id), {"action": "submit"}).status_code == 404
    memory = Memory.objects.first()
    key = run.units.first().character.key
    refused = [
        reverse("corpus:character-list"),
        reverse("corpus:character-detail", args=[key]),
        reverse("corpus:memory-detail", args=[memory.memory_id]),
        reverse("corpus:scenario-list"),
        reverse("account-token"),
        reverse("api-schema"),
        reverse("pipeline"),
        reverse("audit:observers:runs"),
        reverse("audit:observers:run", kwargs={"observer_run_id": run.pk}),
        reverse("audit:observers:report", kwargs={"observer_run_id": run.pk}),
        people_url(run),
    ]
    for url in refused:
        assert client.get(url).status_code == 403, url
    api = APIClient()
    api.force_authenticate(ana)
    for url in (
        reverse("corpus-api:character-list"),
        reverse("corpus-api:memory-list"),
        reverse("corpus-api:memory-detail", args=[memory.memory_id]),
    ):
        assert api.get(url).status_code == 403, url
    # Others do not reach the observer's pages at all.
    for role in (Role.ADMIN, Role.PRIMARY_ANNOTATOR):
        other_client = signed_in(UserFactory(roles=[role]))
        assert other_client.get(reverse("audit:observers:tasks")).status_code == 403
        assert other_client.get(task_url(own[0])).status_code == 403


def test_nothing_an_observer_can_fetch_names_the_design():
    """The blinding scan: every page and API answer the observer reaches, drafted and
    submitted, holds no key, profile text, design number, label or memory id."""
    run = finished_run()
    ana = observer("obs-ana")
    human.human_observers_assign(run_id=run.pk, users=[ana])
    client = signed_in(ana)
    units = list(human.own_tasks(ana))
    client.post(task_url(units[0].pk), {"action": "draft", "s1": "2"})
    form = run.inventory
    client.post(task_url(units[1].pk), {"action": "submit", **answers(form, lambda i: 5)})
    pages = [
        reverse("home"),
        reverse("audit:observers:tasks"),
        *[task_url(u.pk) for u in units],
        reverse("api-index"),
        reverse("api-me"),
    ]
    forbidden = secrets(run)
    assert "CHAR_06" in forbidden and "0.95" in forbidden and "N_HIGH" in forbidden
    bodies = {}
    for url in pages:
        answer = client.get(url)
        assert answer.status_code == 200, url
        bodies[url] = answer.content.decode()
    for url, body in bodies.items():
        leaked = [s for s in forbidden if s in body]
        assert not leaked, (url, leaked)
        assert not LABELS.search(body), url
        assert "MEM_" not in body, url
        assert not any(f'value="{i["id"]}"' in body or f'"{i["id"]}"' in body for i in form.items)
    # The control: the task page does show the passages' text.
    text = Memory.objects.get(memory_id=units[0].material[0]).content_full
    assert text in bodies[task_url(units[0].pk)]


def test_the_home_page_and_navigation_show_the_observer_only_their_tasks():
    run = finished_run()
    ana = observer("obs-ana")
    human.human_observers_assign(run_id=run.pk, users=[ana])
    body = signed_in(ana).get(reverse("home")).content.decode()
    assert "2 people to rate" in body
    assert reverse("audit:observers:tasks") in body
    for elsewhere in ("/corpus/", "/audit/observers/<", "/pipeline/", "/review/", "/compare/"):
        assert f'href="{elsewhere}' not in body


def test_the_task_list_reads_a_constant_number_of_queries(django_assert_max_num_queries):
    run = finished_run()
    ana = observer("obs-ana")
    human.human_observers_assign(run_id=run.pk, users=[ana])
    client = signed_in(ana)
    url = reverse("audit:observers:tasks")
    client.get(url)
    with django_assert_max_num_queries(10) as few:
        client.get(url)
    # 15 more runs, each with both characters for her: 32 tasks in all.
    mine = list(human.own_tasks(ana))
    for _ in range(15):
        more = ObserverRun.objects.create(
            inventory=run.inventory, families=["claude"], prompt_version="observer-1"
        )
        ObserverUnit.objects.bulk_create(
            ObserverUnit(
                run=more,
                character_id=u.character_id,
                profile_version_id=u.profile_version_id,
                observer_kind=HUMAN,
                observer="obs-ana",
                material=u.material,
            )
            for u in mine
        )
    with django_assert_max_num_queries(len(few.captured_queries)):
        body = client.get(url).content.decode()
    assert "Person 25" in body and "Person 26" not in body  # paged: 25 a page
    assert "Person 32" in client.get(url + "?page=2").content.decode()


# --- drafts and the submission -----------------------------------------------------------


def test_a_draft_keeps_the_answers_and_a_submission_needs_every_statement():
    run = finished_run()
    ana = observer("obs-ana")
    unit = human.human_observers_assign(run_id=run.pk, users=[ana])[0]
    client = signed_in(ana)
    client.post(task_url(unit.pk), {"action": "draft", "s1": "2", "s4": "5"})
    page = client.get(task_url(unit.pk)).content.decode()
    assert 'id="s1-2" value="2" checked' in page and 'id="s4-5" value="5" checked' in page
    assert "Draft saved" in client.get(reverse("audit:observers:tasks")).content.decode()
    # The autosave endpoint keeps a change as well.
    draft = reverse("audit:observers:task-draft", kwargs={"task_id": unit.pk})
    assert "Draft saved" in client.post(draft, {"s1": "3"}, HTTP_HX_REQUEST="true").content.decode()
    assert 'id="s1-3" value="3" checked' in client.get(task_url(unit.pk)).content.decode()
    refused = client.post(task_url(unit.pk), {"action": "submit", "s1": "3", "s2": "9"})
    assert refused.status_code == 400
    text = refused.content.decode()
    assert "13 statements" in text and "(3, 4, 5," in text and "Statement 2: choose a point" in text
    assert 'id="s1-3" value="3" checked' in text  # what was chosen stays chosen
    unit.refresh_from_db()
    assert unit.status == ObserverUnit.Status.PENDING and not unit.ratings.exists()


def test_a_submission_stores_the_ratings_is_final_and_requeues_the_report(
    django_capture_on_commit_callbacks,
):
    run = finished_run()
    ana = observer("obs-ana")
    unit = human.human_observers_assign(run_id=run.pk, users=[ana])[0]
    compute_report(KIND, key_for(run.pk))  # the figures before the person submits
    form = run.inventory
    given = {item["id"]: 1 + (n % 5) for n, item in enumerate(form.items)}
    client = signed_in(ana)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        answer = client.post(
            task_url(unit.pk), {"action": "submit", **answers(form, lambda i: given[i["id"]])}
        )
    assert answer.status_code == 302
    unit.refresh_from_db()
    assert unit.status == ObserverUnit.Status.SUCCEEDED
    assert dict(unit.ratings.values_list("item_id", "value")) == given
    # The stored report was queued again with the new inputs.
    row = StoredReport.objects.get(kind=KIND, key=key_for(run.pk))
    assert row.status == ReportStatus.PENDING
    assert row.wanted_fingerprint == kind(KIND).inputs(key_for(run.pk)).fingerprint
    assert len(queued) == 1
    # Final: read-only, and a second submission or draft changes nothing.
    page = client.get(task_url(unit.pk)).content.decode()
    assert 'data-testid="task-submitted"' in page and 'data-testid="submit-ratings"' not in page
    again = client.post(task_url(unit.pk), {"action": "submit", **answers(form, lambda i: 3)})
    assert again.status_code == 400 and "already submitted" in again.content.decode()
    assert dict(unit.ratings.values_list("item_id", "value")) == given
    assert "Submitted" in client.get(reverse("audit:observers:tasks")).content.decode()


def recomputed(run, character_key):
    """Observed means and CIs of one character, from the stored ratings, as the guide
    states them (numpy, written apart from the report's code)."""
    form = run.inventory
    low, high = form.scale_min, form.scale_max
    units = sorted(
        run.units.filter(character__key=character_key, status="succeeded"),
        key=lambda u: f"{u.observer_kind}:{u.observer}",
    )
    stored = {
        u.pk: dict(ObserverRating.objects.filter(unit=u).values_list("item_id", "value"))
        for u in units
    }
    out = {}
    for index, trait in enumerate("OCEAN"):
        items = [i for i in form.items if i["trait"] == trait]
        matrix = np.array(
            [
                [
                    ((low + high - v if i["keying"] == "-" else v) - low) / (high - low)
                    for i in items
                    for v in [stored[u.pk][i["id"]]]
                ]
                for u in units
            ]
        )
        rng = np.random.default_rng([run.seed, units[0].profile_version_id, index])
        n_obs, n_items = matrix.shape
        obs = rng.integers(0, n_obs, size=(2000, n_obs))
        its = rng.integers(0, n_items, size=(2000, n_items))
        means = [matrix[np.ix_(obs[b], its[b])].mean() for b in range(2000)]
        out[trait] = (matrix.mean(), *np.percentile(means, [2.5, 97.5]))
    return out


def test_the_report_counts_the_person_beside_the_model(admin):
    run = finished_run()
    ana = observer("obs-ana")
    unit = human.human_observers_assign(run_id=run.pk, users=[ana], character_ids=None)[0]
    form = run.inventory
    human.submit(
        user=ana, unit_id=unit.pk, data=answers(form, lambda i: 1 if i["keying"] == "+" else 5)
    )
    compute_report(KIND, key_for(run.pk))
    result = StoredReport.objects.get(kind=KIND, key=key_for(run.pk)).result
    key = unit.character.key
    (row,) = [c for c in result["characters"] if c["key"] == key]
    assert row["observers"] == ["human:obs-ana", "llm:claude"]
    for trait, (mean, low, high) in recomputed(run, key).items():
        assert row["observed"][trait] == pytest.approx(mean)
        assert row["ci"][trait] == pytest.approx([low, high])
    page = admin.get(reverse("audit:observers:report", kwargs={"observer_run_id": run.pk}))
    text = page.content.decode()
    assert 'data-people="1"' in text and "1 model, 1 person" in text


def test_a_passage_heading_names_the_life_stage_in_words():
    run = finished_run()
    unit = human.human_observers_assign(run_id=run.pk, users=[observer()])[0]
    Memory.objects.filter(memory_id=unit.material[0]).update(timeline="school_age (6 years old)")
    (first, *_rest) = human.passages(unit)
    assert first.heading == "School age (6 years old)" and first.id == ""
