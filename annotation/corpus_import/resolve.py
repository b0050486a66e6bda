"""Checks of a parsed corpus against the stored rows, before anything is written: memory
trait labels and sequences, the scenarios references, MCQ items and activation lists
name. Each problem is added to ``corpus.problems``; activation lists naming an unknown
scenario are left out with a notice."""

from collections import defaultdict

from annotation.corpus_import.corpus import ParsedCorpus
from annotation.corpus_import.stored import StoredRows
from annotation.corpus_import.vocabulary import full_memory_id


def resolve(corpus: ParsedCorpus, stored: StoredRows) -> None:
    """Check everything; fill in the labels of memories written without one."""
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


def _resolve_memory_labels(corpus: ParsedCorpus, stored: StoredRows) -> None:
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


def _check_memory_sequences(corpus: ParsedCorpus, stored: StoredRows) -> None:
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


def _resolve_activations(corpus: ParsedCorpus, stored: StoredRows, known_stage: dict) -> None:
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
