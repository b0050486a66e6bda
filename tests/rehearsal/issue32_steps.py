"""The rehearsal's steps for issue 32's four breaks, each taken over HTTP as a person
would: a redraft of one field that changes it (after one that a copying model left
identical), the senior's way forward when the re-audit keeps flagging the edit, a pair
regenerated and decided in its second round, the pipeline page showing only live
blockers, and the baseline proposal equal to the optimum of quotas chosen by hand."""

import re

from tests.humanbaseline.subset_checks import hand_chosen_optimum

from . import steps
from .steps import Lab, wait_json

REDRAFTED_FIELD = "self_value_logic"
REDRAFT_NOTE = "Say what the rule costs this person."


def _redraft(lab: Lab, worker) -> dict:
    admin = lab["admin"]
    answer = admin.fill(
        f"/drafting/redraft/{steps.DRAFTED}/",
        {"field": REDRAFTED_FIELD, "admin_note": REDRAFT_NOTE},
        id="redraft-form",
        button="redraft",
    )
    job_id = int(re.search(r"/drafting/jobs/(\d+)/", answer.url).group(1))
    return wait_json(
        admin,
        f"/api/drafting/jobs/{job_id}/",
        lambda b: b["status"] != "running",
        "the redraft",
        worker,
    )


def redraft_one_field(lab: Lab, worker, fake_provider) -> tuple[int, int]:
    """App. B.3: the admin redrafts the drafted character's self-value logic before any
    review. First against a model that copies the quoted version (the answer issue 32
    got from the demo providers): refused as identical on every attempt, the draft
    fails. Then against the fake server's own answer: one call, the field changed,
    nothing else. Returns (failed job, succeeded job)."""
    from annotation.character_drafting.profile_schema import profile_as_json
    from annotation.character_drafting.services.redraft_rules import version_values
    from annotation.corpus.models import ProfileVersion

    v1 = ProfileVersion.objects.get(character__key=steps.DRAFTED, number=1)
    copied = profile_as_json(version_values(v1), steps.DRAFTED)
    fake_provider.enqueue(copied, copied, copied, route="anthropic")
    failed = _redraft(lab, worker)
    assert failed["status"] == "finished_with_failures", failed
    assert not fake_provider.pending("anthropic")
    page = lab["admin"].get(f"/drafting/jobs/{failed['id']}/").text
    assert "identical to version 1" in page
    pipeline = lab["admin"].get("/pipeline/").text
    assert f"Drafting job #{failed['id']}: 1 draft failed" in stage(pipeline, "characters")

    done = _redraft(lab, worker)
    assert done["status"] == "finished", done
    v2 = ProfileVersion.objects.get(character__key=steps.DRAFTED, number=2)
    assert v2.self_value_logic != v1.self_value_logic
    for name in ("construction_label", "occupation", "description", "core_patterns"):
        assert getattr(v2, name) == getattr(v1, name), name
    assert v2.big_five == v1.big_five
    from annotation.character_drafting.models import CharacterDraft

    assert CharacterDraft.objects.get(job_id=done["id"]).calls.count() == 1
    return failed["id"], done["id"]


# The senior's edit: the hindsight is gone, but "As it turned out" is the demo
# classifier's cue for criterion 1, though the bus came minutes later (a false positive).
EDITED_ENDING = "As it turned out, the bus was only ten minutes late that evening."


def senior_way_forward(lab: Lab, run_id: int) -> int:
    """App. B.6: the senior expert edits the memory the reviewer confirmed; the re-audit
    (the patterns and the stock demo classifier) flags the edit; saving the same text
    is refused; "Re-audit again" flags it again; the senior asks the reviewing team,
    whose three reviewers agree the LLM flag is a false positive, which accepts the edit
    as it stands. Returns the case id."""
    senior = lab["senior"]
    listed = senior.get(f"/api/audit/cases/?status=senior&run={run_id}").json()["results"]
    [case] = [c for c in listed if c["memory_id"] == steps.HINDSIGHT_ID]
    path = f"/audit/cases/{case['id']}/"
    page = senior.get(path)
    form = senior.form(page, id="edit-form")
    text = dict(form.fields)["content_full"]
    assert steps.HINDSIGHT in text
    edited = text.replace(steps.HINDSIGHT, EDITED_ENDING)
    answer = senior.submit(form, {"content_full": edited}, page_url=page.url)
    assert "Saved, not accepted" in answer.text, answer.text[-3000:]
    # The same text again: refused, and the refusal names the ways forward.
    form = senior.form(answer, id="edit-form")
    again = senior.submit(form, {"content_full": edited}, page_url=answer.url)
    assert "re-audit it as it stands" in again.text, again.text[-3000:]
    answer = senior.fill(path, id="reaudit-form")
    assert "Re-audited: still flagged" in answer.text, answer.text[-3000:]
    assert "(senior re-audit 1)" in answer.text
    answer = senior.fill(
        path,
        {"reason": "The bus came minutes later, in the same scene: no hindsight."},
        id="ask-team-form",
    )
    assert "Sent to the reviewing team" in answer.text, answer.text[-3000:]
    last = steps.agree_false_positive(lab, case["id"], "Minutes later, same scene: in the moment.")
    assert "Decision recorded" in last
    body = senior.get(f"/api/audit/cases/{case['id']}/").json()
    assert body["status"] == "false_positive", body
    return case["id"]


def regenerate_pair(lab: Lab, worker, pair_id: int) -> int:
    """App. D.2 with issue 22's regeneration: the arbitrator sends the pair back with
    guidance; the worker generates three new candidates; the admin creates and assigns
    the second round; the three annotators all take one candidate as it is, so round 2
    is adopted. Returns the round-2 pair's id."""
    senior = lab["senior"]
    path = f"/arbitration/pairs/{pair_id}/"
    answer = senior.fill(
        path,
        {
            "kind": "regenerate",
            "guidance": "None of the three names the memory the decision rests on.",
        },
        id="arbitration-form",
        button="Record decision",
    )
    assert "Decision recorded" in answer.text, answer.text[-3000:]
    from annotation.comparison.models import ComparisonPair, PairAssignment

    first = ComparisonPair.objects.get(pk=pair_id)
    assert first.status == "regenerating" and first.regeneration_run_id
    run_id = first.regeneration_run_id
    wait_json(
        lab["admin"],
        f"/api/generation/runs/{run_id}/",
        lambda b: b["status"] not in ("pending", "running", "cancelling"),
        "the regeneration run",
        worker,
    )
    admin = lab["admin"]
    page = admin.get("/compare/assign/")
    assert 'data-testid="regenerations-waiting"' in page.text
    form = admin.form(page, action="/compare/assign/")
    answer = admin.submit(
        form,
        {"run": str(run_id), "annotators": [v for v, _ in form.choices["annotators"]]},
        page_url=page.url,
    )
    assert answer.status_code == 200
    second = ComparisonPair.objects.get(previous_round_id=pair_id)
    for expert in steps.EXPERTS:
        # The harness finds the annotator's assignment in the records; the page it opens
        # is the one the annotator's queue links to.
        assignment = PairAssignment.objects.get(pair=second, annotator__username=expert)
        ranked = steps._letters_by_plan(str(assignment.public_id), steps.REGENERATED_INDEX)
        answer = lab[expert].fill(
            f"/compare/{assignment.public_id}/",
            {
                "suitability": "suitable",
                "selected_letter": ranked[0],
                "rating": "as_is",
                "selection_rationale": f"{expert}: this one names the memory.",
                "revision_guidance": "",
            },
            id="judgment-form",
            button="Submit judgment",
        )
        assert "submitted" in answer.text.lower(), answer.text[-2000:]
    second.refresh_from_db()
    assert second.status == "adopted", second.status
    return second.pk


def stage(page: str, key: str) -> str:
    start = page.index(f'data-stage="{key}"')
    end = page.find("data-stage=", start + 1)
    return page[start : end if end > 0 else len(page)]


def tally(section: str, label: str) -> int:
    found = re.search(rf'data-tally="{re.escape(label)}">([\d,]+)<', section)
    assert found, f"no tally {label!r}"
    return int(found.group(1).replace(",", ""))


def pipeline_shows_live_blockers_only(lab: Lab, failed_job: int) -> None:
    """The pipeline page once every pair is decided: the regenerated pair counts as
    decided (by its second round), judged and decided agree, and neither the redraft
    that failed before the one that succeeded nor the regeneration is a blocker."""
    page = lab["admin"].get("/pipeline/").text
    characters = stage(page, "characters")
    assert f"Drafting job #{failed_job}" not in characters, characters
    judging, adjudication = stage(page, "judging"), stage(page, "adjudication")
    judged = tally(judging, "pairs judged by all three annotators")
    assert judged == tally(judging, "pairs in comparison") == tally(adjudication, "pairs decided")
    assert tally(adjudication, "decided in a round after regeneration") == 1
    assert 'data-testid="blockers"' not in adjudication, adjudication
    assert 'data-testid="blockers"' not in judging, judging


def baseline_proposal_is_the_hand_chosen_optimum() -> None:
    """App. J on this small benchmark: the first selection (the paper's defaults) was
    infeasible and the page proposed the largest study; it is the optimum an admin
    reaches by trying every choice of quotas by hand on the same candidates (the
    held-out scenario's items excluded), and the study taken has it."""
    from adjudication.mcq.models import McqItem
    from humanbaseline import selectors
    from humanbaseline.models import SubsetSelection

    failed, used = SubsetSelection.objects.order_by("pk")
    held = failed.parameters["held_out_scenarios"]
    kept_out = set(
        McqItem.objects.filter(scenario__scenario_id__in=held).values_list("pk", flat=True)
    )
    candidates, _ = selectors.subset_candidates()
    candidates = [c for c in candidates if c.item_id not in kept_out]
    best = hand_chosen_optimum(candidates, cap=failed.parameters["total"])
    assert not failed.feasible and failed.proposal["total"] == best, failed.proposal
    assert used.feasible and used.parameters["total"] == best
    assert used.items.count() == best
