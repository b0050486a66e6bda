"""The demo: the offline provider's drafting answers, and the finished demo job."""

import pytest

from annotation.character_drafting import design, prompts
from annotation.character_drafting.demo import demo_drafting
from annotation.character_drafting.models import DraftingJob
from annotation.character_drafting.profile_schema import PROFILE_SCHEMA, check_profile
from annotation.corpus.models import ProfileVersion
from llm import SchemaValidator
from llm.demo import DEMO_LABEL, demo_output
from llm.demo.answers import DemoSettings, prompt_kind
from tests.factories import CharacterFactory


def ask(planned, *, seed=0, model="m"):
    user = prompts.user_message(
        user_template=prompts.DEFAULT_USER,
        redraft_template=prompts.DEFAULT_REDRAFT,
        char_key=planned.char_key,
        design_brief=design.design_brief(planned),
        redraft=None,
    )
    return demo_output(
        system=prompts.render(prompts.DEFAULT_SYSTEM, {}),
        user=user,
        schema=PROFILE_SCHEMA,
        model=model,
        settings=DemoSettings(seed=seed),
    )


def test_the_demo_provider_drafts_valid_labelled_profiles_honouring_the_anchor():
    assert prompt_kind(PROFILE_SCHEMA) == "character_profile"
    for planned in design.table4_plan():
        profile = ask(planned)
        assert SchemaValidator(PROFILE_SCHEMA).errors(profile) == []
        assert check_profile(profile, planned).problems == [], planned.char_key
        assert profile["char_key"] == planned.char_key
        assert profile["name"].startswith(DEMO_LABEL) and DEMO_LABEL in profile["description"]


def test_the_demo_profile_is_fixed_by_seed_and_varies_with_it():
    planned = design.table4_plan()[4]
    assert ask(planned, seed=1) == ask(planned, seed=1)
    drawn = {str(ask(planned, seed=s)["big_five"]) for s in range(6)}
    assert len(drawn) > 1


@pytest.mark.django_db
def test_the_demo_job_is_finished_with_two_labelled_stand_ins_in_review(admin_user):
    for n in range(1, 12):
        CharacterFactory(key=f"CHAR_{n:02d}")
    job = demo_drafting(user=admin_user)
    assert job.status == DraftingJob.Status.FINISHED and job.is_demo
    versions = ProfileVersion.objects.filter(draft__job=job).order_by("character__key")
    assert [v.character.key for v in versions] == ["CHAR_12", "CHAR_13"]
    assert all(v.is_demo_standin and v.number == 1 for v in versions)
    assert all(DEMO_LABEL in v.description for v in versions)
    assert demo_drafting(user=admin_user) == job and DraftingJob.objects.count() == 1
