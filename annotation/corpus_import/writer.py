"""Writing a checked corpus: one writer per record kind, in dependency order (characters,
profiles, scenarios, memories, references, MCQ items, activation sets, candidates).
Each creates what is new, updates what differs and counts what is the same in the
import summary; the rules are in ``apply``'s docstring."""

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem, McqItemVersion, McqOption
from annotation.corpus.models import ActivationSet, Character, Memory, ProfileVersion, Scenario
from annotation.corpus_import.bulk import insert_rows, update_rows
from annotation.corpus_import.corpus import ParsedCorpus
from annotation.corpus_import.reviewed import ReviewedWork, item_state, unchanged
from annotation.corpus_import.stored import (
    ACTIVATION_FIELDS,
    CANDIDATE_FIELDS,
    MCQ_FIELDS,
    MEMORY_FIELDS,
    OPTION_FIELDS,
    PROFILE_FIELDS,
    REFERENCE_FIELDS,
    RELEASE_ORIGIN,
    SCENARIO_FIELDS,
    StoredRows,
    keep_unstated,
    option_sources,
)
from annotation.corpus_import.summary import ImportSummary
from annotation.generation.models import Candidate


def _source(source: str, file: str) -> str:
    text = f"{source}: {file}" if source else file
    return text[-300:]


class CorpusWriter:
    """Writes every kind of record of one import; call ``write`` once."""

    def __init__(
        self,
        corpus: ParsedCorpus,
        stored: StoredRows,
        work: ReviewedWork,
        source: str,
        summary: ImportSummary,
    ):
        self.corpus = corpus
        self.stored = stored
        self.work = work
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
        wanted |= option_sources(corpus)
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
            fields = keep_unstated(fields, latest)
            imported = self.work.imported_profiles.get(key)
            if unchanged(fields, latest, imported, PROFILE_FIELDS):
                self.summary.add("profile_versions", "unchanged")
                continue
            number = (latest["number"] + 1) if latest else 1
            if key in self.work.frozen_profile:
                self.summary.notices.append(
                    f"{origin.file}: {key} profile imported as v{number}, a draft for profile "
                    f"review; v{self.work.frozen_profile[key]} stays the frozen version later "
                    "stages use until the new one is frozen"
                )
            new.append(
                {
                    "character_id": self.stored.character_ids[key],
                    "number": number,
                    "source": self.src(origin),
                    **{f: fields[f] for f in PROFILE_FIELDS},
                }
            )
        insert_rows(ProfileVersion, new)
        self.summary.add("profile_versions", "created", len(new))

    def _upsert(self, kind, model, incoming, existing, names, build, imported=None):
        """Create what is new, update what differs from both the stored row and what was
        last imported (``imported``, by key), count what is the same."""
        create, update = [], []
        imported = imported or {}
        for key, (fields, origin) in incoming.items():
            old = existing.get(key)
            row = build(keep_unstated(fields, old), origin)
            if old is None:
                create.append(row)
            elif not unchanged(row, old, imported.get(key), names):
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
            self.work.imported_scenarios,
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
            "memories",
            Memory,
            self.corpus.memories,
            self.stored.memories,
            MEMORY_FIELDS,
            build,
            self.work.imported_memories,
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
            as_imported = self.work.imported_items.get(qid) == item_state(
                row["correct_answer"], new_options
            )
            if old is None:
                create.append((row, new_options))
            elif as_imported and all(old[f] == row[f] for f in MCQ_FIELDS if f != "correct_answer"):
                # the file still holds what was last imported: later work stays
                self.summary.add("mcq_items", "unchanged")
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
