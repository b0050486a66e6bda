"""Practice items share no scenario with the subset: a named practice item from a subset
scenario is refused; picked automatically, they come only from scenarios outside the
subset, and a shortfall is named; the selection can hold scenarios out for practice."""

import pytest
from django.urls import reverse

from humanbaseline import services
from humanbaseline.models import BaselineError, BaselineStudy, StudyItem
from humanbaseline.subset import SubsetConstraints

from .conftest import build_items, direct_selection

pytestmark = pytest.mark.django_db


def create(selection, admin, **practice):
    return services.study_create(
        user=admin,
        name="Practice check",
        selection=selection,
        consent_version="v1",
        consent_text="Consent.",
        briefing="Briefing.",
        **practice,
    )


@pytest.fixture
def three_scenarios(role_groups, admin_user):
    """4 characters × 3 scenarios; the subset is scenario 1 and half of scenario 2."""
    items = build_items(4, 3)
    return items, direct_selection(items[:6], user=admin_user)


def test_a_practice_item_from_a_subset_scenario_is_refused(three_scenarios, admin_user):
    items, selection = three_scenarios
    outside_subset_same_scenario = items[6]
    assert outside_subset_same_scenario.scenario == items[5].scenario
    with pytest.raises(BaselineError) as error:
        create(
            selection, admin_user, practice_question_ids=[outside_subset_same_scenario.question_id]
        )
    assert (
        f"Practice item {outside_subset_same_scenario.question_id!r}: its scenario "
        f"{items[5].scenario.scenario_id} has 2 items in the subset"
    ) in " ".join(error.value.messages)
    assert BaselineStudy.objects.count() == 0
    study = create(selection, admin_user, practice_question_ids=[items[8].question_id])
    assert study.items.filter(is_practice=True).get().item == items[8]


def test_practice_items_are_picked_outside_the_subsets_scenarios(three_scenarios, admin_user):
    items, selection = three_scenarios
    study = create(selection, admin_user, practice_question_ids=[], practice_count=3)
    practice = [si.item for si in StudyItem.objects.filter(study=study, is_practice=True)]
    subset_scenarios = {i.scenario_id for i in items[:6]}
    assert len(practice) == 3
    assert not {i.scenario_id for i in practice} & subset_scenarios


def test_too_few_items_outside_the_subsets_scenarios_is_a_named_shortfall(
    three_scenarios, admin_user
):
    _, selection = three_scenarios
    with pytest.raises(BaselineError) as error:
        create(selection, admin_user, practice_question_ids=[], practice_count=5)
    text = " ".join(error.value.messages)
    assert "5 practice items asked for, but only 4 final items lie in scenarios outside" in text
    assert "the subset uses 2 of 3 scenarios" in text and "1 short" in text
    assert "hold scenarios out of the subset selection" in text
    assert BaselineStudy.objects.count() == 0


def test_the_selection_holds_named_scenarios_out_for_practice(role_groups, admin_user):
    items = build_items(3, 3)
    held = items[6].scenario.scenario_id
    quotas = (("gemini", 1), ("claude", 1), ("gpt", 1), ("expert_rewrite", 0))
    selection = services.subset_select(
        user=admin_user,
        seed=3,
        constraints=SubsetConstraints(quotas=quotas),
        held_out_scenarios=[held],
    )
    assert selection.feasible, selection.problems
    assert selection.parameters["held_out_scenarios"] == [held]
    assert selection.n_candidates == 6
    chosen = {
        si.item.scenario.scenario_id for si in selection.items.select_related("item__scenario")
    }
    assert held not in chosen
    study = create(selection, admin_user, practice_question_ids=[], practice_count=2)
    practised = {
        si.item.scenario.scenario_id
        for si in study.items.filter(is_practice=True).select_related("item__scenario")
    }
    assert practised and not practised & chosen
    with pytest.raises(BaselineError, match="No scenario 'SCN_NOWHERE'"):
        services.subset_select(user=admin_user, seed=3, held_out_scenarios=["SCN_NOWHERE"])


def test_the_selection_form_takes_held_out_scenarios(role_groups, admin_user, client):
    items = build_items(3, 3)
    held = items[6].scenario.scenario_id
    client.force_login(admin_user)
    response = client.post(
        reverse("baseline:selection-create"),
        {
            "seed": 3,
            "quota_gemini": 1,
            "quota_claude": 1,
            "quota_gpt": 1,
            "quota_expert_rewrite": 0,
            "held_out_scenarios": held,
        },
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    page = client.get(response.url).content.decode()
    assert f"Held out for practice: {held}" in page
