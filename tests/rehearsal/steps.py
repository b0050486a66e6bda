"""The rehearsal's steps, one function per stage of Figure 2, each done over HTTP by a
person of the role the protocol names, through the pages and API a person uses."""

import json
import re
import time
from pathlib import Path

from annotation.corpus_import.synthetic import synthetic_characters

from .client import Session, parse_forms
from .conftest import PASSWORD

WAIT_SECONDS = 240
CHARACTERS = ("CHAR_01", "CHAR_02", "CHAR_03", "CHAR_04")
# CHAR_04 is built on the platform (drafted, reviewed, its memories generated); the
# other three are imported with their memories.
DRAFTED = "CHAR_04"
DRAFTED_ANCHOR = "C low"
GENERATED_MEMORIES = 16
DUPLICATE_ID = ""
# Issue 32: a memory of CHAR_03 with planted hindsight (criterion 1) that its repairs do
# not fix; a reviewer confirms it and the senior expert edits it (issue32_steps).
HINDSIGHT_ID = ""
HINDSIGHT = "Years later I understood what that evening had meant to all of us."
# Issue 32: the pair (its pk) the arbitrator sends back for regeneration.
REGENERATED_INDEX = 7
REGENERATED_PAIR = 0


class Lab:
    """Everyone's sessions, opened on first use."""

    def __init__(self, base_url: str):
        self.base_url = base_url
        self.sessions: dict[str, Session] = {}

    def __getitem__(self, username: str) -> Session:
        if username not in self.sessions:
            self.sessions[username] = Session(self.base_url, username, PASSWORD)
        return self.sessions[username]


def form_ids(page, prefix: str) -> list[str]:
    """The ids after ``prefix`` of the page's forms whose id starts with it."""
    ids = [f.attrs.get("id") or "" for f in parse_forms(page.text)]
    return [i.removeprefix(prefix) for i in ids if i.startswith(prefix)]


def wait_for(read, done, what: str, worker=None):
    """Read until ``done(value)``; the worker must stay alive meanwhile."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        value = read()
        if done(value):
            return value
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS}s for {what}: {value!r:.500}"
        if worker is not None:
            assert worker.poll() is None, f"the worker died while waiting for {what}"
        time.sleep(0.3)


def wait_json(session: Session, path: str, done, what: str, worker=None) -> dict:
    """Poll a JSON endpoint until ``done(body)``."""
    return wait_for(lambda: session.get(path).json(), done, what, worker)


def corpus_files(release_dir: Path, tmp: Path, held: dict) -> tuple[Path, Path]:
    """Three characters with 16 memories each (the fourth is drafted), and three of the
    release's scenarios (one per life stage from adolescence on, so every character has
    memories before)."""
    characters = synthetic_characters(characters=3, memories_per_character=16, seed=7)
    # One memory of CHAR_02 repeats an earlier narrative word for word: the audit's
    # deduplication leaves it out, and nothing downstream may show it.
    # Its repairs change nothing (``held``), so both reach a memory reviewer unchanged.
    memories = characters[1]["episodic_memory_set"]
    source, duplicate = memories[10], memories[11]
    for name in ("context", "content_summary", "content_full"):
        duplicate[name] = source[name]
    global DUPLICATE_ID
    DUPLICATE_ID = duplicate["id"]
    held[source["id"]] = source
    held[duplicate["id"]] = duplicate
    global HINDSIGHT_ID
    hindsight = characters[2]["episodic_memory_set"][5]
    hindsight["content_full"] = f"{hindsight['content_full']} {HINDSIGHT}"
    HINDSIGHT_ID = hindsight["id"]
    held[HINDSIGHT_ID] = hindsight
    chars = tmp / "characters.json"
    chars.write_text(json.dumps({"characters": characters}, ensure_ascii=False))
    release = json.loads((release_dir / "scenarios.json").read_text())["scenarios"]
    chosen = {}
    for stage, rows in release.items():
        if len(chosen) < 3 and rows and rows[0]["age"] >= 16:
            chosen[stage] = rows[:1]
    assert len(chosen) == 3, chosen.keys()
    scenarios = tmp / "scenarios.json"
    scenarios.write_text(json.dumps({"scenarios": chosen}, ensure_ascii=False))
    return chars, scenarios


def import_corpus(lab: Lab, files: tuple[Path, ...], worker) -> dict:
    admin = lab["admin"]
    page = admin.get("/corpus/import/")
    form = admin.form(page, action="/corpus/import/")
    handles = [("files", (f.name, f.read_bytes(), "application/json")) for f in files]
    answer = admin.submit(form, page_url=page.url, files=handles)
    job_id = int(re.search(r"/corpus/import/(\d+)/", answer.url).group(1))
    body = wait_json(
        admin,
        f"/api/corpus/imports/{job_id}/",
        lambda b: b["status"] not in ("pending", "running"),
        "the import",
        worker,
    )
    assert body["status"] == "succeeded", body
    return body


def draft_character(lab: Lab, worker) -> int:
    """§2.2 Stage 1, App. L.2: the admin drafts CHAR_04 on its trait anchor; checked
    plan first, then the launch; the worker drafts it into profile version 1."""
    admin = lab["admin"]
    values = {"design": "custom", "custom_design": f"{DRAFTED}: {DRAFTED_ANCHOR}"}
    checked = admin.fill("/drafting/new/", values, id="drafting-design-form", button="preview")
    form = admin.form(checked, id="drafting-design-form")
    answer = admin.submit(form, page_url=checked.url, button="launch")
    job_id = int(re.search(r"/drafting/jobs/(\d+)/", answer.url).group(1))
    body = wait_json(
        admin,
        f"/api/drafting/jobs/{job_id}/",
        lambda b: b["status"] != "running",
        "the drafting job",
        worker,
    )
    assert body["status"] == "finished", body
    return job_id


def generate_memories(lab: Lab, worker) -> int:
    """App. B.4-B.5: a plan for the drafted character's memories (small target), then a
    run on the worker; the memories wait for the audit."""
    admin = lab["admin"]
    answer = admin.fill(
        "/memory-generation/plans/new/",
        {"characters": [DRAFTED], "target": GENERATED_MEMORIES},
        button="plan",
    )
    launch = re.search(r'href="([^"]*/memory-generation/runs/new/\?plans=[\d,]+)"', answer.text)
    assert launch, answer.text[-3000:]
    page = admin.get(launch.group(1).replace("&amp;", "&"))
    form = admin.form(page, id="run-new-form")
    review = admin.submit(form, page_url=page.url, button="review")
    form = admin.form(review, id="run-confirm-form")
    answer = admin.submit(form, page_url=review.url, button="confirm")
    run_id = int(re.search(r"/memory-generation/runs/(\d+)/", answer.url).group(1))
    body = wait_json(
        admin,
        f"/api/memory-generation/runs/{run_id}/",
        lambda b: b["status"] not in ("pending", "running", "cancelling"),
        "the memory generation run",
        worker,
    )
    assert body["status"] == "finished", body
    return run_id


CRITERIA = (
    "trait_alignment",
    "internal_coherence",
    "occupational_plausibility",
    "behavioral_specificity",
    "interpretive_restraint",
)
EXPERTS = ("expert-1", "expert-2", "expert-3")


def review_profiles(lab: Lab) -> None:
    """App. B.3: three independent reviews per profile (one asks for a local revision
    with a field-level change request), then the senior resolves and freezes."""
    for key in CHARACTERS:
        for expert in EXPERTS:
            session = lab[expert]
            path = f"/review/profiles/{key}/"
            recommendation = "accept"
            if key == "CHAR_01" and expert == "expert-2":
                recommendation = "local_revision"
                session.fill(
                    path,
                    {
                        "field": "description",
                        "passage": "a",
                        "concern": "The description states the trait as a constant.",
                        "suggested_correction": "Say when it shows.",
                    },
                    id="change-request-form",
                )
            answer = session.fill(
                path,
                {name: "meets" for name in CRITERIA}
                | {"recommendation": recommendation, "explanation": f"{expert} on {key}"},
                id="profile-review-form",
                button="Submit review",
            )
            assert f"Review of {key} submitted." in answer.text, answer.text[-3000:]
        senior = lab["senior"]
        adjudicate = f"/review/profiles/{key}/adjudicate/"
        page = senior.get(adjudicate)
        for request_id in form_ids(page, "resolve-"):
            answer = senior.fill(
                adjudicate,
                {
                    f"cr{request_id}-status": "rejected",
                    f"cr{request_id}-reason": "The description already names the situations.",
                },
                id=f"resolve-{request_id}",
            )
            assert "Change request resolved." in answer.text
        answer = senior.fill(
            adjudicate, {"suitability_confirmed": "on", "note": "Fit."}, id="freeze-form"
        )
        assert "is frozen" in answer.text, answer.text[-3000:]


def audit_memories(lab: Lab, worker, *, confirm=()) -> int:
    """App. B.6: the admin runs the automated audit (the worker checks every memory and
    asks the repair model to fix each defect it flags, re-checked by the patterns and
    the classifier); memrev-1 confirms the defect of each memory in ``confirm`` (it
    goes to the senior expert); the three memory reviewers agree on the false positives
    left. Returns the run's id; ``finalize_audit`` finalizes it."""
    admin = lab["admin"]
    answer = admin.fill("/audit/runs/", {"note": "rehearsal"}, id="run-form")
    run_id = int(re.search(r"/audit/runs/(\d+)/", answer.url).group(1))
    wait_json(
        admin,
        f"/api/audit/runs/{run_id}/",
        lambda b: b["status"] == "finished",
        "the audit",
        worker,
    )
    wait_json(
        admin,
        "/api/audit/cases/?status=repairing",
        lambda b: not b["count"],
        "the repairs",
        worker,
    )
    # A false-positive override takes effect once the team of three reviewers agreed.
    reviewer = lab["memrev-1"]
    for case in reviewer.get("/api/audit/cases/?status=review&page_size=500").json()["results"]:
        if case["memory_id"] in confirm:
            answer = reviewer.fill(
                f"/audit/cases/{case['id']}/",
                {"decision": "confirmed", "reason": "Hindsight the child could not have."},
                action=f"/audit/cases/{case['id']}/decide/",
            )
            assert "Decision recorded" in answer.text, answer.text[-2000:]
            continue
        agree_false_positive(lab, case["id"], "Within the guided range for this age.")
    assert not reviewer.get("/api/audit/cases/?status=review").json()["count"]
    return run_id


def agree_false_positive(lab: Lab, case_id: int, reason: str) -> str:
    """The three memory reviewers each agree that the case's flags are false positives;
    the answer to the last."""
    for name in ("memrev-1", "memrev-2", "memrev-3"):
        answer = lab[name].fill(
            f"/audit/cases/{case_id}/",
            {"decision": "false_positive", "reason": reason},
            action=f"/audit/cases/{case_id}/decide/",
        )
        assert "Your agreement is recorded" in answer.text or (
            "Decision recorded" in answer.text
        ), answer.text[-2000:]
    return answer.text


def finalize_audit(lab: Lab, run_id: int) -> None:
    """App. B.6's last step: accepted memories deduplicated, chronological, sanitized."""
    admin = lab["admin"]
    answer = admin.fill(f"/audit/runs/{run_id}/", action=f"/audit/runs/{run_id}/finalize/")
    assert "finalized" in answer.text.lower(), answer.text[-2000:]


SCREENERS = ("screener-1", "screener-2")
DIAMONDS = (
    "duty",
    "intellect",
    "adversity",
    "mating",
    "positivity",
    "negativity",
    "deception",
    "sociality",
)


def review_scenarios(lab: Lab) -> list[str]:
    """App. C.1-C.2: both reviewers approve each scenario in pass 1 and rate its
    DIAMONDS profile in pass 2; ratings within the tolerance complete the review."""
    listed = lab["admin"].get("/api/corpus/scenarios/").json()["results"]
    scenario_ids = [row["id"] for row in listed]
    for scenario_id in scenario_ids:
        path = f"/review/scenarios/{scenario_id}/"
        for screener in SCREENERS:
            lab[screener].fill(
                path,
                {
                    "decision": "approve",
                    "logically_consistent": "on",
                    "psychologically_plausible": "on",
                    "character_agnostic": "on",
                },
                id="screening-form",
            )
        for n, screener in enumerate(SCREENERS):
            answer = lab[screener].fill(
                path,
                {dim: 4 + (n if dim == "duty" else 0) for dim in DIAMONDS},
                id="rating-form",
            )
        assert 'data-testid="final-recorded"' in answer.text, answer.text[-3000:]
    return scenario_ids


def generate_candidates(lab: Lab, scenario_ids: list[str], worker) -> int:
    """§2.4 Stage 1, App. D.1: one candidate per model family for every pair."""
    admin = lab["admin"]
    answer = admin.fill(
        "/corpus/generation/new/",
        {
            "families": ["claude", "gpt", "gemini"],
            "characters": list(CHARACTERS),
            "scenarios": scenario_ids,
            "note": "rehearsal",
        },
        id="generation-run-form",
        button="Launch run",
    )
    run_id = int(re.search(r"/corpus/generation/(\d+)/", answer.url).group(1))
    body = wait_json(
        admin,
        f"/api/generation/runs/{run_id}/",
        lambda b: b["status"] not in ("pending", "running", "cancelling"),
        "the generation run",
        worker,
    )
    assert body["status"] == "finished", body
    return run_id


def assign_pairs(lab: Lab) -> None:
    """App. D.2: every pair to the three primary annotators."""
    admin = lab["admin"]
    page = admin.get("/compare/assign/")
    form = admin.form(page, action="/compare/assign/")
    run = [v for v, _ in form.choices["run"] if v][-1]
    answer = admin.submit(
        form,
        {"run": run, "annotators": [v for v, _ in form.choices["annotators"]]},
        page_url=page.url,
    )
    statuses = re.findall(r'data-testid="pair-row"><td>[^<]*</td><td>([^<]*)', answer.text)
    assert [s.strip() for s in statuses] == ["With the annotators"] * 12, statuses


def _letters_by_plan(assignment: str, index: int) -> list[str]:
    """The letters of one annotator's assignment, the planned choice first. The plan
    (the harness's, read from the records; the annotator's page shows no family) turns
    the preferred family with the pair, so every family becomes the reference of pairs
    in more than one scenario and the baseline's per-source quotas can be met whichever
    scenario is held out."""
    from annotation.comparison.models import COMPARISON_LETTERS, PairAssignment
    from annotation.generation.models import Candidate

    permutation = PairAssignment.objects.get(public_id=assignment).permutation
    family = dict(Candidate.objects.filter(pk__in=permutation).values_list("pk", "family"))
    order = ["claude", "gpt", "gemini"]
    first = (index // 3 + index) % 3
    preference = order[first:] + order[:first]
    letters = dict(zip(COMPARISON_LETTERS, permutation, strict=True))
    return sorted(letters, key=lambda letter: preference.index(family[letters[letter]]))


def judge_pairs(lab: Lab) -> dict[tuple[str, str], str]:
    """App. D.2: each annotator judges every pair blind (Steps 1-3). All three pick the
    same candidate "as-is" (the plan's, see ``_letters_by_plan``) for most pairs
    (adopted unanimously); on every fourth pair expert-3 prefers another candidate, and
    on every sixth expert-2 asks for partial revisions, so those pairs go to the
    arbitrator; so does the pair at ``REGENERATED_INDEX`` (expert-1 prefers another
    candidate), which the arbitrator sends back for regeneration (issue32_steps).
    Returns the planned route per pair."""
    from annotation.comparison.models import PairAssignment

    global REGENERATED_PAIR
    plan = {}
    for expert in EXPERTS:
        session = lab[expert]
        rows = sorted(
            session.get("/api/compare/").json()["results"],
            key=lambda r: (r["character"], r["scenario"]),
        )
        assert len(rows) == 12
        for index, row in enumerate(rows):
            ranked = _letters_by_plan(row["assignment"], index)
            choice, rating = ranked[0], "as_is"
            route = "unanimous"
            if index % 4 == 1:
                route = "arbitration"
                if expert == "expert-3":
                    choice = ranked[1]
            if index % 6 == 3:
                route = "arbitration"
                if expert == "expert-2":
                    rating = "partial"
            if index == REGENERATED_INDEX:  # issue 32: the arbitrator sends it back
                route = "regeneration"
                if expert == "expert-1":
                    choice = ranked[1]
                REGENERATED_PAIR = PairAssignment.objects.get(public_id=row["assignment"]).pair_id
            plan[(row["character"], row["scenario"])] = route
            answer = session.fill(
                f"/compare/{row['assignment']}/",
                {
                    "suitability": "suitable",
                    "selected_letter": choice,
                    "rating": rating,
                    "selection_rationale": f"{expert}: the most grounded of the three.",
                    "revision_guidance": "Name the memory it relies on."
                    if rating == "partial"
                    else "",
                },
                id="judgment-form",
                button="Submit judgment",
            )
            assert "submitted" in answer.text.lower(), answer.text[-2000:]
    return plan


def arbitrate(lab: Lab, *, skip=()) -> dict[str, str]:
    """App. D.2: the arbitrator resolves every escalated pair, in turn adopting a
    candidate, editing one with the annotators' guidance, rewriting from scratch and
    discarding an unfit pair; the pairs in ``skip`` are left to another step. Returns
    pair id → decision."""
    senior = lab["senior"]
    queue = senior.get("/arbitration/")
    pair_ids = list(dict.fromkeys(re.findall(r"/arbitration/pairs/(\d+)/", queue.text)))
    kinds = ("edited", "adopted", "rewritten", "discarded")
    decided = {}
    for pair_id in pair_ids:
        if int(pair_id) in skip:
            continue
        path = f"/arbitration/pairs/{pair_id}/"
        if not form_ids(senior.get(path), "arbitration-form"):
            continue  # already resolved (the queue may list it)
        kind = kinds[len(decided) % len(kinds)]
        values = {"kind": kind, "reason": f"Rehearsal: {kind}."}
        if kind == "adopted":
            values["candidate"] = "1"
        elif kind == "edited":
            page = senior.get(f"{path}?edit=2")
            form = senior.form(page, id="arbitration-form")
            final = dict(form.fields)["final_decision"]
            values |= {"candidate": "2", "final_decision": final + " I say so out loud."}
            senior.submit(form, values, page_url=page.url, button="Record decision")
            decided[pair_id] = kind
            continue
        elif kind == "rewritten":
            values |= {
                "summary": "I weigh what happened before and choose to stay.",
                "emotional_tone": "Steady, a little anxious.",
                "core_reasoning": "Past promises kept me steady; I keep this one too.",
                "final_decision": "I stay and finish what I promised, then tell them why.",
            }
        answer = senior.fill(path, values, id="arbitration-form", button="Record decision")
        assert "Decision recorded" in answer.text, answer.text[-3000:]
        decided[pair_id] = kind
    return decided


def wait_html(session: Session, path: str, marker: str, what: str, worker=None) -> str:
    """Poll a page until ``marker`` is in it."""
    return wait_for(lambda: session.get(path).text, lambda text: marker in text, what, worker)


def assemble_items(lab: Lab, worker) -> None:
    """App. D.5, D.3.1: the admin starts an assembly run (distractors from the other
    characters' references to the same scenario, chosen by the selector model); every
    assembled item is screened by the judge model."""
    admin = lab["admin"]
    answer = admin.fill("/items/assembly/", testid="start-run")
    run_id = int(re.search(r"/items/assembly/(\d+)/", answer.url).group(1))
    wait_html(
        admin, f"/items/assembly/{run_id}/", 'data-testid="run-status">Done<', "assembly", worker
    )
    wait_json(
        admin,
        "/api/items/queue/?page_size=500",
        lambda b: all(r["status"] != "screening" for r in b["results"]),
        "screening",
        worker,
    )


def review_items(lab: Lab, worker) -> dict[str, int]:
    """App. D.5: the item reviewer completes items with too few distractors by writing
    one by hand, and decides every item the judge flagged (kept with a note); each
    changed item is screened again. Returns how many items got each treatment."""
    senior = lab["senior"]
    done = {"written": 0, "retained": 0}
    for _ in range(6):
        queue = wait_json(
            senior,
            "/api/items/queue/?page_size=500",
            lambda b: all(r["status"] != "screening" for r in b["results"]),
            "screening",
            worker,
        )["results"]
        if not queue:
            return done
        for row in queue:
            path = f"/items/{row['id']}/"
            if row["status"] == "needs_completion":
                for n in range(4 - row["options"]):
                    senior.fill(
                        path,
                        {
                            "content": f"I would rather wait and see what the others do ({n}).",
                            "note": "Written by hand: too few references for this scenario.",
                        },
                        testid="form-generate",
                    )
                    done["written"] += 1
            elif row["status"] == "flagged":
                senior.fill(
                    path,
                    {"action": "retain", "note": "The options are distinct; the key holds."},
                    testid="form-decide",
                )
                done["retained"] += 1
    raise AssertionError(f"items still under review: {queue}")


AUDITORS = ("auditor-1", "auditor-2", "auditor-3")


def create_label_audit(lab: Lab) -> int:
    """App. D.6: the admin checks the audit team (three experts with no part in the
    construction, and an adjudicator) and draws the stratified sample."""
    admin = lab["admin"]
    page = admin.get("/audit/labels/new/")
    form = admin.form(page, action="/audit/labels/new/")
    answer = admin.submit(
        form,
        {
            "experts": [v for v, _ in form.choices["experts"]],
            "adjudicator": [v for v, _ in form.choices["adjudicator"] if v][0],
            "items_per_stratum": 1,
            "seed": 31,
        },
        page_url=page.url,
    )
    assert "items sampled" in answer.text, answer.text[-2000:]
    return int(re.search(r"/audit/labels/(\d+)/", answer.url).group(1))


def audit_labels(lab: Lab, audit_id: int) -> dict[str, str]:
    """App. D.6: each expert picks, blind to the key, the option most likely for the
    character. On the first item one expert dissents (2 of 3 on the key); on the second
    two agree on another option; the adjudicator keeps the first and changes the
    second's key. Returns question id → adjudication decision."""
    from adjudication.mcq.models import McqItem  # the plan needs the keys; experts never see them

    keys = dict(McqItem.objects.values_list("question_id", "correct_answer"))

    def other(key):
        return "A" if key != "A" else "B"

    for expert in AUDITORS:
        session = lab[expert]
        for row in session.get(f"/api/audit/labels/{audit_id}/mine/?page_size=500").json()[
            "results"
        ]:
            key = keys[row["question_id"]]
            choice = key
            if row["position"] == 1 and expert == "auditor-2":
                choice = other(key)
            if row["position"] == 2 and expert in ("auditor-1", "auditor-2"):
                choice = other(key)
            answer = session.fill(
                f"/audit/labels/items/{row['id']}/",
                {"choice": choice, "note": f"{expert}: fits the profile."},
                id="selection-form",
            )
            assert "Selection recorded" in answer.text, answer.text[-2000:]
    adjudicator = lab["audit-adjudicator"]
    page = adjudicator.get(f"/audit/labels/{audit_id}/")
    item_ids = list(dict.fromkeys(re.findall(r"/audit/labels/items/(\d+)/adjudicate/", page.text)))
    # The pages name an item in words; the adjudicator's API row carries its question id.
    rows = adjudicator.get(f"/api/audit/labels/{audit_id}/items/?page_size=500").json()
    question_ids = {str(row["id"]): row["question_id"] for row in rows["results"]}
    decided = {}
    for item_id in item_ids:
        path = f"/audit/labels/items/{item_id}/adjudicate/"
        page = adjudicator.get(path)
        if not form_ids(page, "adjudication-form"):
            continue
        # The adjudicator's page shows the key at the audit (it names the item in words).
        key = re.search(r'data-testid="key">([A-D])<', page.text).group(1)
        position_two = len(decided) == 1
        values = {"decision": "usable_as_is", "note": "The dissent does not hold."}
        if position_two:
            values = {
                "decision": "key_change",
                "new_key": other(key),
                "note": "Two experts are right: this option fits the profile better.",
            }
        answer = adjudicator.fill(path, values, id="adjudication-form")
        assert "Decision recorded." in answer.text, answer.text[-2000:]
        decided[question_ids[item_id]] = values["decision"]
    return decided


def select_baseline(lab: Lab) -> int:
    """App. J: each final item's source comes from its adjudicated reference (a family,
    or an expert rewrite); the paper's 150-item selection cannot hold on a dozen items,
    so the admin takes the largest feasible study the page proposes. The scenario with
    the most final items is held out for the practice items (which share no scenario
    with the subset)."""
    from collections import Counter

    from adjudication.mcq.models import McqItem

    admin = lab["admin"]
    page = admin.get("/baseline/admin/")
    copy = [f for f in parse_forms(page.text) if any("Copy sources" in b[2] for b in f.buttons)]
    assert copy, "no copy-sources form"
    admin.submit(copy[0], page_url=page.url)
    per_scenario = Counter(
        McqItem.objects.filter(status="final").values_list("scenario__scenario_id", flat=True)
    )
    held = sorted(per_scenario, key=lambda s: (-per_scenario[s], s))[0]
    answer = admin.fill(
        "/baseline/admin/",
        {"seed": 5, "held_out_scenarios": held},
        action="/baseline/admin/selections/new/",
    )
    assert 'data-testid="proposal"' in answer.text, answer.text[-3000:]
    proposal = [
        f for f in parse_forms(answer.text) if any("Use this study" in b[2] for b in f.buttons)
    ]
    answer = admin.submit(proposal[0], page_url=answer.url)
    assert "Selected items" in answer.text, answer.text[-3000:]
    return int(re.search(r"/baseline/admin/selections/(\d+)/", answer.url).group(1))


def run_baseline_study(lab: Lab, selection_id: int) -> int:
    """App. J: the admin opens a study on the selection, with one practice item picked
    from the scenario held out of the subset; an undergraduate joins by the invitation
    link, consents, reads the briefing, tries the practice item, answers every item and
    finalizes."""
    admin = lab["admin"]
    answer = admin.fill(
        "/baseline/admin/studies/new/",
        {
            "name": "Rehearsal baseline",
            "selection": str(selection_id),
            "consent_text": "You may stop at any time; your answers are kept anonymous.",
            "briefing": "Read the person's memories and pick the response they would give.",
            "practice_question_ids": "",
            "practice_count": "1",
        },
        action="/baseline/admin/studies/new/",
    )
    study_id = int(re.search(r"/baseline/admin/studies/(\d+)/", answer.url).group(1))
    invitation = re.search(r'data-testid="invitation-url">([^<]+)<', answer.text).group(1)
    student = Session(lab.base_url, "undergrad-1", None)
    join = student.get(invitation.replace(lab.base_url, ""))
    answer = student.submit(
        student.form(join, action=""),
        {"username": "undergrad-1", "password": "Rehearsal-pass-2026"},
        page_url=join.url,
    )
    assert answer.url.endswith("/consent/"), answer.url
    answer = student.submit(student.form(answer, action=""), page_url=answer.url, button="agree")
    answer = student.submit(student.form(answer, action=""), page_url=answer.url)
    assert "/practice/1/" in answer.url, answer.url
    practice_form = student.form(answer, id="practice-form")
    checked = student.submit(practice_form, {"choice": "B"}, page_url=answer.url)
    assert "The expected answer is" in checked.text
    start = [f for f in parse_forms(checked.text) if f.action.endswith("/start/")][0]
    item = student.submit(start, page_url=checked.url)
    position = 1
    while "/items/" in item.url:
        form = student.form(item, id="answer-form")
        button = "next" if any(b[1] == "next" for b in form.buttons) else None
        answer = {"choice": "ABCD"[position % 4], "seconds": 12}
        item = student.submit(form, answer, page_url=item.url, button=button)
        position += 1
        assert position <= 40, "the study never ends"
    finalize = student.get(f"/baseline/s/{study_id}/finalize/")
    done = student.submit(student.form(finalize, action=""), page_url=finalize.url)
    assert "final" in done.text.lower(), done.text[-2000:]
    return study_id


def evaluate(lab: Lab, worker) -> int:
    """§3, App. E, L.1: the admin runs one model on every final item under Naive RAG
    (the audited corpus, BM25); the worker asks the model through the provider."""
    admin = lab["admin"]
    answer = admin.fill(
        "/evaluation/",
        {
            "provider": "fake",
            "label": "rehearsal model",
            "setting": "naive_rag",
            "item_set": "all",
            "retrieval_method": "bm25",
        },
        id="run-form",
    )
    run_id = int(re.search(r"/evaluation/runs/(\d+)/", answer.url).group(1))
    body = wait_json(
        admin,
        f"/api/evaluation/runs/{run_id}/",
        lambda b: b["status"] not in ("pending", "running"),
        "the evaluation run",
        worker,
    )
    assert body["status"] == "finished", body
    return run_id


def export(lab: Lab, worker=None) -> dict[str, bytes]:
    """The admin builds the final set (an export job the worker builds), follows it,
    downloads the zip and checks its SHA-256: every file of the zip, by path."""
    import hashlib
    import io
    import zipfile

    admin = lab["admin"]
    admin.fill("/export/", {"kind": "final_set"}, action="/export/start/")
    job_id = admin.get("/api/exports/?kind=final_set&ordering=-id").json()["results"][0]["id"]
    body = wait_json(
        admin,
        f"/api/exports/{job_id}/",
        lambda b: b["status"] in ("finished", "failed"),
        "the export job",
        worker,
    )
    assert body["status"] == "finished", body
    response = admin.get(f"/export/jobs/{job_id}/download/")
    digest = hashlib.sha256(response.content).hexdigest()
    assert digest == response.headers["X-Checksum-SHA256"] == body["sha256"]
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        return {
            name.removeprefix("heartbench-final-set/"): archive.read(name)
            for name in archive.namelist()
        }
