"""Resolve a ParsedCorpus against the database and write it in one transaction.

Rules for records that already exist (the import is idempotent: the same files twice
change nothing, not even ``source``):

* characters: matched by key; a key referenced anywhere and not stored is created
  without a profile.
* profiles: compared with the character's latest ProfileVersion; any difference
  creates the next version number. A version, frozen or not, is never rewritten.
* ``is_demo_standin`` counts only where a file states it: a file that does not say
  keeps the stored label (new rows get False), so re-importing an unlabelled file over
  labelled stand-ins changes nothing.
* scenarios, memories, imported references, activation sets: matched by natural key
  (scenario id; memory id; character and scenario; character, scenario, step and
  origin) and updated in place when a field differs. Nothing is ever deleted: a record
  missing from a later file stays.
* references set by adjudication (decision type other than "imported") are never
  replaced by an import; the file's text is left out with a notice.
* imported candidates (the first release's three families' decisions,
  ``pairwise_analysis.decisions_by_model``): matched by character, scenario and family
  among candidates with no run, updated in place when the model name or decision
  differs. Generated candidates are never touched.
* MCQ items: matched by question id; a change of any field or option bumps ``version``
  and replaces the options. New and changed items get a McqItemVersion snapshot
  (origin import) of their version; unchanged items get none.
* activation lists naming a scenario that is neither stored nor imported (the
  release's step-1 file screens 15 draft scenarios dropped before publication) are
  left out with a notice; references and MCQs naming an unknown scenario are errors.
"""

from collections import defaultdict

from django.db import connection, transaction

from adjudication.arbitration.models import McqItem, McqItemVersion, McqOption, ReferenceResponse
from annotation.corpus.models import ActivationSet, Character, Memory, ProfileVersion, Scenario
from annotation.corpus_import.bulk import insert_rows, update_rows
from annotation.corpus_import.corpus import ParsedCorpus
from annotation.corpus_import.problems import ImportRejected
from annotation.corpus_import.summary import ImportSummary
from annotation.corpus_import.vocabulary import MEMORY_ID, full_memory_id, label_for_anchor
from annotation.generation.models import Candidate

PROFILE_FIELDS = [
    "construction_label",
    "occupation",
    "openness",
    "conscientiousness",
    "extraversion",
    "agreeableness",
    "neuroticism",
    "description",
    "self_value_logic",
    "core_patterns",
    "is_demo_standin",
]
SCENARIO_FIELDS = [
    "stage",
    "age_range",
    "age",
    "diamonds_dimension",
    "name",
    "category",
    "intensity",
    "description_for_agent",
    "setting_location",
    "setting_time",
    "setting_atmosphere",
    "context_text",
    "trigger_sender",
    "trigger_message",
    "action_required",
]
MEMORY_FIELDS = [
    "anonymized_id",
    "sequence",
    "timeline",
    "event_age",
    "life_stage",
    "context",
    "content_summary",
    "content_full",
    "triggers",
    "psych_conclusion",
    "behavior_policy",
    "emotion_primary",
    "emotion_secondary",
    "emotion_intensity",
    "relevance_tags",
    "is_demo_standin",
]
REFERENCE_FIELDS = [
    "summary",
    "emotional_tone",
    "core_reasoning",
    "value_orientation",
    "final_decision",
]
MCQ_FIELDS = ["character_id", "scenario_id", "stage", "correct_answer"]
OPTION_FIELDS = ["label", "content", "is_correct", "is_generated", "source_character"]
ACTIVATION_FIELDS = ["scenario_age", "memory_ids", "memory_types", "details"]
CANDIDATE_FIELDS = ["model_name", "final_decision"]
RELEASE_ORIGIN = "release"
# Any constant works; it only has to be the same for every importer process.
_ADVISORY_LOCK = 0x4842_494D  # "HBIM"


def apply_corpus(corpus: ParsedCorpus, *, source: str, summary: ImportSummary) -> None:
    with transaction.atomic():
        if connection.vendor == "postgresql":
            # Two imports at once would both see a key as new and collide on insert.
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_ADVISORY_LOCK])
        stored = _Stored(corpus)
        _resolve(corpus, stored)
        corpus.close()
        if corpus.problems:
            raise ImportRejected(corpus.problems)
        summary.notices.extend(corpus.notices)
        _Writer(corpus, stored, source, summary).write()


def _option_sources(corpus: ParsedCorpus) -> set[str]:
    """Characters that wrote an MCQ option are referenced too, and exist as rows."""
    return {
        o["source_character"] for fields, _ in corpus.mcq_items.values() for o in fields["options"]
    }


def _keep_unstated(fields: dict, stored: dict | None) -> dict:
    """A stand-in label the file does not state is the stored one (False when new)."""
    if fields.get("is_demo_standin", False) is not None:
        return fields
    return {**fields, "is_demo_standin": bool(stored and stored["is_demo_standin"])}


def _source(source: str, file: str) -> str:
    text = f"{source}: {file}" if source else file
    return text[-300:]


class _Stored:
    """The rows an import can touch, read with one query per kind."""

    def __init__(self, corpus: ParsedCorpus):
        memory_owners = {m["character_key"] for m, _ in corpus.memories.values()}
        memory_owners |= {m["character_key"] for m, _ in corpus.unlabelled_memories}
        keys = set(corpus.profiles) | memory_owners
        for table in (corpus.references, corpus.mcq_items, corpus.activations):
            keys |= {fields["character_key"] for fields, _ in table.values()}
        keys |= _option_sources(corpus)
        self.character_ids = dict(Character.objects.filter(key__in=keys).values_list("key", "id"))
        self.character_keys = {pk: key for key, pk in self.character_ids.items()}

        self.latest_profiles = {}
        profile_keys = set(corpus.profiles) | memory_owners
        for row in (
            ProfileVersion.objects.filter(character__key__in=profile_keys)
            .order_by("character_id", "number")
            .values("id", "number", "character__key", "frozen_at", *PROFILE_FIELDS)
        ):
            self.latest_profiles[row["character__key"]] = row

        scenario_ids = set(corpus.scenarios)
        for table in (corpus.references, corpus.mcq_items, corpus.activations):
            scenario_ids |= {fields["scenario_key"] for fields, _ in table.values()}
        self.scenarios = {
            row["scenario_id"]: row
            for row in Scenario.objects.filter(scenario_id__in=scenario_ids).values(
                "id", "scenario_id", *SCENARIO_FIELDS
            )
        }

        self.memories = {}
        self.memories_by_anonymized = {}
        self.memory_labels = defaultdict(set)
        if memory_owners:
            for row in Memory.objects.filter(character__key__in=memory_owners).values(
                "id", "memory_id", "character_id", *MEMORY_FIELDS
            ):
                self.memories[row["memory_id"]] = row
                self.memories_by_anonymized[row["anonymized_id"]] = row
                match = MEMORY_ID.match(row["memory_id"])
                if match:
                    self.memory_labels[self.character_keys[row["character_id"]]].add(match["label"])

        self.references = {}
        if corpus.references:
            pairs = [k for k in corpus.references]
            # Current references only: a superseded one is history (adjudication).
            for row in ReferenceResponse.objects.filter(
                superseded_at__isnull=True,
                character__key__in={c for c, _ in pairs},
                scenario__scenario_id__in={s for _, s in pairs},
            ).values(
                "id", "character__key", "scenario__scenario_id", "decision_type", *REFERENCE_FIELDS
            ):
                self.references[(row["character__key"], row["scenario__scenario_id"])] = row

        self.mcq_items = {}
        if corpus.mcq_items:
            for row in McqItem.objects.filter(question_id__in=list(corpus.mcq_items)).values(
                "id", "question_id", "version", *MCQ_FIELDS
            ):
                row["options"] = []
                self.mcq_items[row["question_id"]] = row
            by_id = {row["id"]: row for row in self.mcq_items.values()}
            for option in (
                McqOption.objects.filter(item_id__in=list(by_id))
                .order_by("item_id", "label")
                .values("item_id", *OPTION_FIELDS)
            ):
                by_id[option.pop("item_id")]["options"].append(option)

        self.candidates = {}
        if corpus.candidates:
            keys = list(corpus.candidates)
            for row in Candidate.objects.filter(
                run__isnull=True,
                origin=Candidate.Origin.IMPORTED,
                character__key__in={k[0] for k in keys},
                scenario__scenario_id__in={k[1] for k in keys},
            ).values("id", "character__key", "scenario__scenario_id", "family", *CANDIDATE_FIELDS):
                key = (row["character__key"], row["scenario__scenario_id"], row["family"])
                self.candidates[key] = row

        self.activations = {}
        if corpus.activations:
            keys = list(corpus.activations)
            for row in ActivationSet.objects.filter(
                origin=RELEASE_ORIGIN,
                character__key__in={k[0] for k in keys},
                scenario__scenario_id__in={k[1] for k in keys},
            ).values("id", "character__key", "scenario__scenario_id", "step", *ACTIVATION_FIELDS):
                key = (row["character__key"], row["scenario__scenario_id"], row["step"])
                self.activations[key] = row

    def anchor_label(self, corpus: ParsedCorpus, character: str) -> str | None:
        """The memory-id label implied by the character's profile (incoming, else stored)."""
        if character in corpus.profiles:
            profile = corpus.profiles[character][0]
        elif character in self.latest_profiles:
            profile = self.latest_profiles[character]
        else:
            return None
        version = ProfileVersion(**{k: profile[k] for k in BIG_FIVE_FIELDS})
        return label_for_anchor(version.trait_anchor)


BIG_FIVE_FIELDS = ["openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism"]


def _resolve(corpus: ParsedCorpus, stored: _Stored) -> None:
    _resolve_memory_labels(corpus, stored)
    _check_memory_sequences(corpus, stored)
    known_stage = {sid: row["stage"] for sid, row in stored.scenarios.items()}
    known_stage.update({sid: fields["stage"] for sid, (fields, _) in corpus.scenarios.items()})
    for table in ("references", "mcq_items"):
        for fields, origin in getattr(corpus, table).values():
            sid = fields["scenario_key"]
            p = corpus.problems_for(origin.file)
            if sid not in known_stage:
                if sid not in corpus.mentioned_scenarios:
                    p.add(
                        origin.record,
                        "scenario_id",
                        f"unknown scenario {sid}: it is neither stored nor in this import "
                        "(import scenarios.json first or together)",
                    )
            elif fields["stage"] != known_stage[sid]:
                p.add(
                    origin.record,
                    "stage",
                    f"is {fields['stage']}, but {sid} is a {known_stage[sid]} scenario",
                )
    _resolve_activations(corpus, stored, known_stage)


def _resolve_memory_labels(corpus: ParsedCorpus, stored: _Stored) -> None:
    incoming_labels = defaultdict(set)
    for memory, _ in corpus.memories.values():
        incoming_labels[memory["character_key"]].add(memory["label"])
    for memory, origin in corpus.unlabelled_memories:
        character = memory["character_key"]
        candidates = incoming_labels[character] | stored.memory_labels[character]
        anchor = stored.anchor_label(corpus, character)
        if anchor:
            candidates = candidates | {anchor}
        p = corpus.problems_for(origin.file)
        if len(candidates) != 1:
            reason = (
                f"{character} has no other memories and no profile with a single defining trait"
                if not candidates
                else f"{character}'s memories and profile disagree "
                f"({', '.join(sorted(candidates))})"
            )
            p.add(
                origin.record,
                "header",
                f"the short header names no trait label and {reason}; write the full id "
                f"(==={full_memory_id(character, 'N_HIGH', memory['sequence'])}===, "
                "with the right label)",
            )
            continue
        (label,) = candidates
        memory["label"] = label
        memory["memory_id"] = full_memory_id(character, label, memory["sequence"])
        corpus.add("memories", memory["memory_id"], memory, origin, "header")
    corpus.unlabelled_memories = []
    # Every memory of a character carries that character's trait label (App. B.6 ids
    # such as MEM_CHAR_03_C_HIGH_0002); a stray label is a copy-paste error.
    by_character = defaultdict(list)
    for memory, origin in corpus.memories.values():
        by_character[memory["character_key"]].append((memory, origin))
    for character, memories in by_character.items():
        anchor = stored.anchor_label(corpus, character)
        stored_labels = stored.memory_labels[character]
        if anchor:
            expected, why = anchor, "its profile's defining trait"
        elif len(stored_labels) == 1:
            (expected,) = stored_labels
            why = "the character's stored memories"
        else:
            labels = [m["label"] for m, _ in memories]
            expected = max(sorted(set(labels)), key=labels.count)
            why = "most of the character's memories"
        for memory, origin in memories:
            if memory["label"] != expected:
                corpus.problems_for(origin.file).add(
                    origin.record,
                    _id_field(origin),
                    f"trait label {memory['label']} disagrees with {why} ({character}: {expected})",
                )


def _id_field(origin) -> str:
    """Where a memory's id sits: ``id`` in a characters file, the header line in the
    storage serialization."""
    return "id" if " / memory " in origin.record else "header"


def _check_memory_sequences(corpus: ParsedCorpus, stored: _Stored) -> None:
    seen = {}
    for memory, origin in corpus.memories.values():
        anonymized = memory["anonymized_id"]
        field = _id_field(origin)
        p = corpus.problems_for(origin.file)
        if anonymized in seen:
            p.add(
                origin.record,
                field,
                f"sequence {memory['sequence']:04d} of {memory['character_key']} is also used by "
                f"{seen[anonymized]} (anonymized ids must be unique: {anonymized})",
            )
            continue
        seen[anonymized] = memory["memory_id"]
        existing = stored.memories_by_anonymized.get(anonymized)
        if existing and existing["memory_id"] != memory["memory_id"]:
            p.add(
                origin.record,
                field,
                f"sequence {memory['sequence']:04d} of {memory['character_key']} is already "
                "stored as "
                f"{existing['memory_id']}",
            )


def _resolve_activations(corpus: ParsedCorpus, stored: _Stored, known_stage: dict) -> None:
    skipped = defaultdict(lambda: defaultdict(int))
    age_differs = defaultdict(int)
    files_without_scenarios = set()
    for key, (fields, origin) in list(corpus.activations.items()):
        sid = fields["scenario_key"]
        if sid in known_stage:
            if sid in corpus.scenarios:
                scenario_age = corpus.scenarios[sid][0]["age"]
            else:
                scenario_age = stored.scenarios[sid]["age"]
            if scenario_age != fields["scenario_age"]:
                age_differs[origin.file] += 1
            continue
        if not known_stage and not corpus.mentioned_scenarios:
            files_without_scenarios.add(origin.file)
        elif sid not in corpus.mentioned_scenarios:
            skipped[origin.file][sid] += 1
        del corpus.activations[key]
    for file in files_without_scenarios:
        corpus.problems_for(file).add(
            "",
            "scenario_id",
            "no scenarios are stored or in this import: import scenarios.json first or together",
        )
    for file, by_scenario in skipped.items():
        ids = ", ".join(sorted(by_scenario))
        corpus.notices.append(
            f"{file}: left out {sum(by_scenario.values())} activation lists naming "
            f"{len(by_scenario)} "
            f"scenarios that are not in the corpus ({ids})"
        )
    for file, n in age_differs.items():
        corpus.notices.append(
            f"{file}: {n} activation lists record a scenario_age other than the scenario's "
            "age; kept as recorded"
        )


class _Writer:
    def __init__(self, corpus: ParsedCorpus, stored: _Stored, source: str, summary: ImportSummary):
        self.corpus = corpus
        self.stored = stored
        self.source = source
        self.summary = summary

    def write(self) -> None:
        self.characters()
        self.profiles()
        self.scenarios()
        self.memories()
        self.references()
        self.mcq_items()
        self.activation_sets()
        self.candidates()

    def src(self, origin) -> str:
        return _source(self.source, origin.file)

    def characters(self) -> None:
        corpus, stored = self.corpus, self.stored
        wanted = set(corpus.profiles) | {m["character_key"] for m, _ in corpus.memories.values()}
        for table in (corpus.references, corpus.mcq_items, corpus.activations):
            wanted |= {fields["character_key"] for fields, _ in table.values()}
        wanted |= _option_sources(corpus)
        missing = sorted(wanted - set(stored.character_ids))
        created = Character.objects.bulk_create([Character(key=key) for key in missing])
        if any(c.pk is None for c in created):  # backends that do not return ids
            created = Character.objects.filter(key__in=missing)
        stored.character_ids.update({c.key: c.pk for c in created})
        self.summary.add("characters", "created", len(missing))
        self.summary.add("characters", "unchanged", len(wanted) - len(missing))

    def profiles(self) -> None:
        new = []
        for key, (fields, origin) in sorted(self.corpus.profiles.items()):
            latest = self.stored.latest_profiles.get(key)
            fields = _keep_unstated(fields, latest)
            if latest and all(latest[f] == fields[f] for f in PROFILE_FIELDS):
                self.summary.add("profile_versions", "unchanged")
                continue
            new.append(
                {
                    "character_id": self.stored.character_ids[key],
                    "number": (latest["number"] + 1) if latest else 1,
                    "source": self.src(origin),
                    **{f: fields[f] for f in PROFILE_FIELDS},
                }
            )
        insert_rows(ProfileVersion, new)
        self.summary.add("profile_versions", "created", len(new))

    def _upsert(self, kind, model, incoming, existing, names, build):
        """Create what is new, update what differs, count what is the same."""
        create, update = [], []
        for key, (fields, origin) in incoming.items():
            old = existing.get(key)
            row = build(_keep_unstated(fields, old), origin)
            if old is None:
                create.append(row)
            elif any(old[n] != row[n] for n in names):
                update.append({"id": old["id"], **row})
            else:
                self.summary.add(kind, "unchanged")
        insert_rows(model, create)
        update_rows(model, update, [*names, "source"])
        self.summary.add(kind, "created", len(create))
        self.summary.add(kind, "updated", len(update))

    def scenarios(self) -> None:
        def build(fields, origin):
            return {
                "scenario_id": fields["scenario_id"],
                "source": self.src(origin),
                **{f: fields[f] for f in SCENARIO_FIELDS},
            }

        self._upsert(
            "scenarios",
            Scenario,
            self.corpus.scenarios,
            self.stored.scenarios,
            SCENARIO_FIELDS,
            build,
        )
        ids = dict(
            Scenario.objects.filter(scenario_id__in=list(self.corpus.scenarios)).values_list(
                "scenario_id", "id"
            )
        )
        for sid, row in self.stored.scenarios.items():
            ids.setdefault(sid, row["id"])
        self.scenario_ids = ids

    def scenario_id(self, sid: str) -> int:
        if sid not in self.scenario_ids:
            self.scenario_ids[sid] = self.stored.scenarios[sid]["id"]
        return self.scenario_ids[sid]

    def memories(self) -> None:
        def build(fields, origin):
            return {
                "memory_id": fields["memory_id"],
                "character_id": self.stored.character_ids[fields["character_key"]],
                "source": self.src(origin),
                **{f: fields[f] for f in MEMORY_FIELDS},
            }

        self._upsert(
            "memories", Memory, self.corpus.memories, self.stored.memories, MEMORY_FIELDS, build
        )

    def references(self) -> None:
        incoming = {}
        for key, (fields, origin) in self.corpus.references.items():
            old = self.stored.references.get(key)
            if old and old["decision_type"] != ReferenceResponse.DecisionType.IMPORTED:
                if any(old[f] != fields[f] for f in REFERENCE_FIELDS):
                    self.summary.notices.append(
                        f"{origin.file}: kept the {old['decision_type']} reference of "
                        f"{' / '.join(key)}; "
                        "an import does not replace an adjudicated reference"
                    )
                self.summary.add("references", "unchanged")
                continue
            incoming[key] = (fields, origin)

        def build(fields, origin):
            return {
                "character_id": self.stored.character_ids[fields["character_key"]],
                "scenario_id": self.scenario_id(fields["scenario_key"]),
                "decision_type": ReferenceResponse.DecisionType.IMPORTED,
                "source": self.src(origin),
                **{f: fields[f] for f in REFERENCE_FIELDS},
            }

        self._upsert(
            "references",
            ReferenceResponse,
            incoming,
            self.stored.references,
            REFERENCE_FIELDS,
            build,
        )

    def mcq_items(self) -> None:
        create, update, options = [], [], []
        by_qid = {}
        for qid, (fields, origin) in self.corpus.mcq_items.items():
            row = {
                "question_id": qid,
                "character_id": self.stored.character_ids[fields["character_key"]],
                "scenario_id": self.scenario_id(fields["scenario_key"]),
                "stage": fields["stage"],
                "correct_answer": fields["correct_answer"],
                "source": self.src(origin),
            }
            new_options = [{f: o[f] for f in OPTION_FIELDS} for o in fields["options"]]
            old = self.stored.mcq_items.get(qid)
            if old is None:
                create.append((row, new_options))
            elif any(old[f] != row[f] for f in MCQ_FIELDS) or old["options"] != new_options:
                update.append({"id": old["id"], "version": old["version"] + 1, **row})
                options.extend({"item_id": old["id"], **o} for o in new_options)
            else:
                self.summary.add("mcq_items", "unchanged")
        if create:
            items = McqItem.objects.bulk_create(
                [McqItem(**row) for row, _ in create], batch_size=500
            )
            if any(item.pk is None for item in items):
                by_qid = dict(
                    McqItem.objects.filter(
                        question_id__in=[r["question_id"] for r, _ in create]
                    ).values_list("question_id", "id")
                )
            else:
                by_qid = {item.question_id: item.pk for item in items}
            for row, item_options in create:
                options.extend({"item_id": by_qid[row["question_id"]], **o} for o in item_options)
        if update:
            McqOption.objects.filter(item_id__in=[row["id"] for row in update]).delete()
            update_rows(McqItem, update, [*MCQ_FIELDS, "version", "source"])
        insert_rows(McqOption, options)
        insert_rows(McqItemVersion, self._item_versions(create, by_qid, update))
        self.summary.add("mcq_items", "created", len(create))
        self.summary.add("mcq_items", "updated", len(update))

    def _item_versions(self, create, by_qid, update) -> list[dict]:
        """Snapshots (origin import) of every new or changed item's version; for a changed
        item also of the version it replaces, when no snapshot of it exists yet."""

        def snapshot(item_id, number, correct_answer, options):
            return {
                "item_id": item_id,
                "number": number,
                "correct_answer": correct_answer,
                "options": [{**o, "source_reference": None} for o in options],
                "assembly_params": {},
                "origin": McqItemVersion.Origin.IMPORT,
                "note": "",
            }

        rows = [
            snapshot(by_qid[row["question_id"]], 1, row["correct_answer"], item_options)
            for row, item_options in create
        ]
        if update:
            old_by_id = {old["id"]: old for old in self.stored.mcq_items.values()}
            kept = set(
                McqItemVersion.objects.filter(item_id__in=list(old_by_id)).values_list(
                    "item_id", "number"
                )
            )
            for row in update:
                old = old_by_id[row["id"]]
                if (old["id"], old["version"]) not in kept:
                    rows.append(
                        snapshot(old["id"], old["version"], old["correct_answer"], old["options"])
                    )
                new_options = self.corpus.mcq_items[row["question_id"]][0]["options"]
                options = [{f: o[f] for f in OPTION_FIELDS} for o in new_options]
                rows.append(snapshot(row["id"], row["version"], row["correct_answer"], options))
        return rows

    def activation_sets(self) -> None:
        def build(fields, origin):
            return {
                "character_id": self.stored.character_ids[fields["character_key"]],
                "scenario_id": self.scenario_id(fields["scenario_key"]),
                "step": fields["step"],
                "origin": RELEASE_ORIGIN,
                **{f: fields[f] for f in ACTIVATION_FIELDS},
            }

        incoming = self.corpus.activations
        existing = self.stored.activations
        create, update = [], []
        for key, (fields, origin) in incoming.items():
            row = build(fields, origin)
            old = existing.get(key)
            if old is None:
                create.append(row)
            elif any(old[n] != row[n] for n in ACTIVATION_FIELDS):
                update.append({"id": old["id"], **row})
            else:
                self.summary.add("activation_sets", "unchanged")
        insert_rows(ActivationSet, create)
        update_rows(ActivationSet, update, ACTIVATION_FIELDS)
        self.summary.add("activation_sets", "created", len(create))
        self.summary.add("activation_sets", "updated", len(update))

    def candidates(self) -> None:
        # Family and model name are provenance: never shown to annotators.
        def build(fields, origin):
            return {
                "character_id": self.stored.character_ids[fields["character_key"]],
                "scenario_id": self.scenario_id(fields["scenario_key"]),
                "family": fields["family"],
                "origin": Candidate.Origin.IMPORTED,
                "summary": "",
                "emotional_tone": "",
                "core_reasoning": "",
                "activated_memory_ids": [],
                "source": self.src(origin),
                **{f: fields[f] for f in CANDIDATE_FIELDS},
            }

        self._upsert(
            "candidates",
            Candidate,
            self.corpus.candidates,
            self.stored.candidates,
            CANDIDATE_FIELDS,
            build,
        )
