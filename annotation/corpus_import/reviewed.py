"""Work later stages did on records an import may change, and what was last imported.

An import compares each incoming profile, memory and scenario with the text it last
imported, not with the current text: profile review, the memory audit and scenario
review change the current text, and a file that still holds the imported text must not
undo them. A record counts as unchanged when the file matches either what was last
imported or what is stored now.

What was last imported is read from each stage's own history, one query per kind:

* profile: the character's latest version not written by a senior expert's edit
  (``ProfileEdit.to_version``);
* memory: the stored row with the audit's version 1 (the text the audit found,
  ``MemoryVersion`` origin original) over its narrative fields, when the audit kept one;
* scenario: its latest version of origin import (scenario review keeps one when the
  review opens), else the stored row;
* MCQ item: its latest snapshot of origin import (key and options).

A change to a record another stage has worked on is refused, naming the record and
what protects it:

* profile: a frozen version, a senior expert's edit, or a profile review case;
* memory: a version the audit wrote (repair, senior edit, sanitation), a case of an
  audit run, or an audit run that covered it;
* scenario: its scenario review (at any pass) or a revision it produced;
* MCQ item: a version item review or the label audit wrote, or an item-review decision.

With ``as_new_versions`` a changed profile becomes the character's next version, a
draft that enters profile review from the start; the frozen version stays the one
later stages use until the new one is frozen. A profile under review (an open case)
takes no new version until its case is frozen: the case reviews one version. Memories
and scenarios have no imported versions (docs/lab-admin/pipeline.md, "Importing a
corpus"): a changed audited memory or reviewed scenario is refused with or without the option.
"""

from collections import defaultdict
from dataclasses import dataclass, field

from adjudication.mcq.models import McqItemVersion, McqReviewDecision
from annotation.corpus.models import ProfileVersion
from annotation.corpus_import.corpus import ParsedCorpus
from annotation.corpus_import.stored import (
    MEMORY_FIELDS,
    OPTION_FIELDS,
    PROFILE_FIELDS,
    SCENARIO_FIELDS,
    StoredRows,
    changed_fields,
    keep_unstated,
)
from annotation.profile_review.models import ProfileReviewCase
from annotation.scenario_review.models import ScenarioReview, ScenarioVersion
from audit.memory_quality.models import AuditRun, MemoryCase, MemoryVersion


def _day(moment) -> str:
    return f"{moment:%Y-%m-%d}" if moment else "an unknown date"


def _by(username) -> str:
    return f" by {username}" if username else ""


@dataclass
class ReviewedWork:
    """What was last imported and what protects each stored record an import names."""

    # natural key -> the record's fields as last imported
    imported_profiles: dict = field(default_factory=dict)
    imported_memories: dict = field(default_factory=dict)
    imported_scenarios: dict = field(default_factory=dict)
    # natural key -> why the record may not change ("" entries are never stored)
    profile_protection: dict = field(default_factory=lambda: defaultdict(list))
    memory_protection: dict = field(default_factory=lambda: defaultdict(list))
    scenario_protection: dict = field(default_factory=lambda: defaultdict(list))
    # question id -> (key, options) as last imported; why the item may not change
    imported_items: dict = field(default_factory=dict)
    item_protection: dict = field(default_factory=lambda: defaultdict(list))
    # character key -> why no new version may be added now (an open review case)
    profile_open_case: dict = field(default_factory=dict)
    # character key -> the latest frozen version's number
    frozen_profile: dict = field(default_factory=dict)

    @classmethod
    def read(cls, corpus: ParsedCorpus, stored: StoredRows) -> "ReviewedWork":
        work = cls()
        work._read_profiles([k for k in corpus.profiles if k in stored.latest_profiles])
        work._read_memories(stored, [m for m in corpus.memories if m in stored.memories])
        work._read_scenarios(stored, [s for s in corpus.scenarios if s in stored.scenarios])
        work._read_items(stored, [q for q in corpus.mcq_items if q in stored.mcq_items])
        return work

    def _read_items(self, stored: StoredRows, question_ids: list[str]) -> None:
        if not question_ids:
            return
        by_pk = {stored.mcq_items[q]["id"]: q for q in question_ids}
        origins = dict(McqItemVersion.Origin.choices)
        changed = {}
        for version in (
            McqItemVersion.objects.filter(item_id__in=list(by_pk))
            .order_by("item_id", "number")
            .values("item_id", "number", "origin", "correct_answer", "options")
        ):
            qid = by_pk[version["item_id"]]
            if version["origin"] == McqItemVersion.Origin.IMPORT:
                self.imported_items[qid] = item_state(version["correct_answer"], version["options"])
            elif version["origin"] != McqItemVersion.Origin.ASSEMBLY:
                changed[qid] = version
        for qid, version in changed.items():
            self.item_protection[qid].append(
                f"v{version['number']} written in {origins[version['origin']].lower()}"
            )
        actions = dict(McqReviewDecision.Action.choices)
        for decision in McqReviewDecision.objects.filter(item_id__in=list(by_pk)).values(
            "item_id", "action", "reviewer__username", "decided_at"
        ):
            self.item_protection[by_pk[decision["item_id"]]].append(
                f"{actions[decision['action']].lower()} in item review"
                f"{_by(decision['reviewer__username'])} on {_day(decision['decided_at'])}"
            )

    def _read_profiles(self, keys: list[str]) -> None:
        if not keys:
            return
        rows = (
            ProfileVersion.objects.filter(character__key__in=keys)
            .order_by("character_id", "number")
            .values(
                "character__key",
                "number",
                "frozen_at",
                "frozen_by__username",
                "created_by_edit__editor__username",
                "created_by_edit__created_at",
                *PROFILE_FIELDS,
            )
        )
        frozen, edited = {}, {}
        for row in rows:
            key = row["character__key"]
            if row["created_by_edit__created_at"] is None:
                self.imported_profiles[key] = row
            else:
                edited[key] = row
            if row["frozen_at"] is not None:
                frozen[key] = row
        for key, row in frozen.items():
            self.frozen_profile[key] = row["number"]
            self.profile_protection[key].append(
                f"v{row['number']} frozen{_by(row['frozen_by__username'])} on "
                f"{_day(row['frozen_at'])}"
            )
        for key, row in edited.items():
            self.profile_protection[key].append(
                f"v{row['number']} edited{_by(row['created_by_edit__editor__username'])} in "
                f"profile review on {_day(row['created_by_edit__created_at'])}"
            )
        cases = ProfileReviewCase.objects.filter(character__key__in=keys).values(
            "character__key", "status", "reviewed_version__number"
        )
        statuses = dict(ProfileReviewCase.Status.choices)
        for case in cases:
            if case["status"] == ProfileReviewCase.Status.FROZEN:
                continue
            key = case["character__key"]
            reason = (
                f"v{case['reviewed_version__number']} under profile review "
                f"({statuses[case['status']].lower()})"
            )
            self.profile_protection[key].append(reason)
            self.profile_open_case[key] = reason

    def _read_memories(self, stored: StoredRows, memory_ids: list[str]) -> None:
        if not memory_ids:
            return
        rows = {memory_id: stored.memories[memory_id] for memory_id in memory_ids}
        by_pk = {row["id"]: memory_id for memory_id, row in rows.items()}
        self.imported_memories = {memory_id: dict(row) for memory_id, row in rows.items()}
        origins = dict(MemoryVersion.Origin.choices)
        latest_change = {}
        for version in (
            MemoryVersion.objects.filter(memory_id__in=list(by_pk))
            .order_by("memory_id", "number")
            .values("memory_id", "number", "origin", "fields", "author__username")
        ):
            memory_id = by_pk[version["memory_id"]]
            if version["origin"] == MemoryVersion.Origin.ORIGINAL:
                self.imported_memories[memory_id].update(version["fields"])
            else:
                latest_change[memory_id] = version
        for memory_id, version in latest_change.items():
            self.memory_protection[memory_id].append(
                f"edited in the memory audit ({origins[version['origin']].lower()}, "
                f"v{version['number']}{_by(version['author__username'])})"
            )
        statuses = dict(MemoryCase.Status.choices)
        audited_by = defaultdict(set)  # memory id -> runs named already
        for case in MemoryCase.objects.filter(memory_id__in=list(by_pk)).values(
            "memory_id", "run_id", "status"
        ):
            memory_id = by_pk[case["memory_id"]]
            audited_by[memory_id].add(case["run_id"])
            self.memory_protection[memory_id].append(
                f"flagged in memory audit run #{case['run_id']} "
                f"({statuses[case['status']].lower()})"
            )
        runs = AuditRun.objects.filter(
            status__in=[AuditRun.Status.RUNNING, AuditRun.Status.FINISHED]
        ).values("pk", "character_keys", "started_at", "finished_at", "finalized_at")
        for run in sorted(runs, key=lambda r: r["pk"], reverse=True):
            reach = run["finalized_at"] or run["finished_at"] or run["started_at"]
            for memory_id, row in rows.items():
                key = stored.character_keys[row["character_id"]]
                covered = not run["character_keys"] or key in run["character_keys"]
                if not covered or reach is None or row["created_at"] > reach:
                    continue
                if audited_by[memory_id]:  # the latest run is enough to name
                    continue
                audited_by[memory_id].add(run["pk"])
                done = "finalized" if run["finalized_at"] else "run"
                self.memory_protection[memory_id].append(
                    f"audited in memory audit run #{run['pk']} ({done} on {_day(reach)})"
                )

    def _read_scenarios(self, stored: StoredRows, scenario_ids: list[str]) -> None:
        if not scenario_ids:
            return
        self.imported_scenarios = {sid: stored.scenarios[sid] for sid in scenario_ids}
        stages = dict(ScenarioReview.Stage.choices)
        for review in ScenarioReview.objects.filter(scenario__scenario_id__in=scenario_ids).values(
            "scenario__scenario_id", "stage", "completed_at"
        ):
            sid = review["scenario__scenario_id"]
            if review["stage"] == ScenarioReview.Stage.COMPLETE:
                done = _day(review["completed_at"])
                reason = f"reviewed in scenario review (completed on {done})"
            else:
                reason = f"in scenario review ({stages[review['stage']]})"
            self.scenario_protection[sid].append(reason)
        revised = {}
        for version in (
            ScenarioVersion.objects.filter(scenario__scenario_id__in=scenario_ids)
            .order_by("scenario_id", "number")
            .values("scenario__scenario_id", "number", "origin", *SCENARIO_FIELDS)
        ):
            sid = version["scenario__scenario_id"]
            if version["origin"] == ScenarioVersion.Origin.IMPORT:
                self.imported_scenarios[sid] = version
            elif version["origin"] == ScenarioVersion.Origin.REVISION:
                revised[sid] = version["number"]
        for sid, number in revised.items():
            self.scenario_protection[sid].append(f"revised in scenario review (v{number})")


def item_state(correct_answer: str, options: list[dict]) -> tuple:
    """An item's key and options, compared field by field (what an import writes)."""
    return correct_answer, [{f: o[f] for f in OPTION_FIELDS} for o in options]


def unchanged(fields: dict, current: dict | None, imported: dict | None, names) -> bool:
    """The file holds what was last imported, or what is stored now."""
    return any(
        row is not None and not changed_fields(fields, row, names) for row in (current, imported)
    )


def refuse_changes_to_reviewed_work(
    corpus: ParsedCorpus, stored: StoredRows, work: ReviewedWork, *, as_new_versions: bool
) -> None:
    """Add a problem for every change to a record another stage has worked on."""
    for key, (fields, origin) in corpus.profiles.items():
        current = stored.latest_profiles.get(key)
        reasons = work.profile_protection.get(key)
        if current is None or not reasons:
            continue
        fields = keep_unstated(fields, current)
        imported = work.imported_profiles.get(key)
        if unchanged(fields, current, imported, PROFILE_FIELDS):
            continue
        if as_new_versions and key not in work.profile_open_case:
            continue
        changes = ", ".join(changed_fields(fields, imported or current, PROFILE_FIELDS))
        if as_new_versions:
            advice = "a new version can be imported once its review case is frozen"
        else:
            advice = (
                f"import as new versions to add it as v{current['number'] + 1} for profile review"
            )
        corpus.problems_for(origin.file).add(
            origin.record,
            "",
            f"{key} profile: {'; '.join(reasons)}. The file changes {changes}; {advice}.",
        )
    memory_advice = (
        "a memory has no imported versions: change it in the memory audit, or import the "
        "new text under a new memory id"
    )
    _refuse(
        corpus,
        "memories",
        "memory",
        stored.memories,
        work.imported_memories,
        work.memory_protection,
        MEMORY_FIELDS,
        memory_advice,
    )
    scenario_advice = (
        "a scenario has one review: import the new text under a new scenario id so that it "
        "is reviewed as a new scenario"
    )
    _refuse(
        corpus,
        "scenarios",
        "scenario",
        stored.scenarios,
        work.imported_scenarios,
        work.scenario_protection,
        SCENARIO_FIELDS,
        scenario_advice,
    )
    for qid, (fields, origin) in corpus.mcq_items.items():
        reasons = work.item_protection.get(qid)
        current = stored.mcq_items.get(qid)
        if current is None or not reasons:
            continue
        incoming = item_state(fields["correct_answer"], fields["options"])
        if incoming in (
            item_state(current["correct_answer"], current["options"]),
            work.imported_items.get(qid),
        ):
            continue
        corpus.problems_for(origin.file).add(
            origin.record,
            "",
            f"item {qid}: {'; '.join(reasons)}. The file changes its key or options; an "
            "item is changed in item review: import the new item under a new question id.",
        )


def _refuse(corpus, table, noun, current_rows, imported_rows, protection, names, advice):
    for key, (fields, origin) in getattr(corpus, table).items():
        reasons = protection.get(key)
        current = current_rows.get(key)
        if current is None or not reasons:
            continue
        fields = keep_unstated(fields, current)
        imported = imported_rows.get(key)
        if unchanged(fields, current, imported, names):
            continue
        changes = ", ".join(changed_fields(fields, imported or current, names))
        corpus.problems_for(origin.file).add(
            origin.record,
            "",
            f"{noun} {key}: {'; '.join(reasons)}. The file changes {changes}; {advice}.",
        )
