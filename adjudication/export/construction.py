"""The construction variant of the final-set export (``construction/``, App. D.3).

Every final item with its key, option provenance, versions, the reference it keys and
the adjudication chain of every workflow (:mod:`adjudication.export.chain`).
Construction team only.
"""

from adjudication.export.chain import chain_sections
from adjudication.export.encoding import EXPORT_FORMAT, iso, jsonl, sorted_json
from adjudication.export.selectors import FinalSet
from adjudication.mcq.versions import option_dicts


def _username(user) -> str | None:
    return user.get_username() if user is not None else None


def construction_reference(reference) -> dict | None:
    if reference is None:
        return None
    return {
        "id": reference.pk,
        "decision_type": reference.decision_type,
        "source": reference.source,
        "source_candidate": reference.source_candidate_id,
        "source_family": reference.source_family,
        "arbitrator": _username(reference.arbitrator),
        # App. D.2: the keyed rate is the one the paper's "≈15%" reports.
        "word_edit_rate_keyed_decision": reference.keyed_word_edit_rate,
        "word_edit_rate_all_fields": reference.word_edit_rate,
        "supersedes": reference.supersedes_id,
        "superseded_at": iso(reference.superseded_at),
        "created_at": iso(reference.created_at),
        "inner_consciousness": reference.inner_consciousness,
        "final_decision": reference.final_decision,
    }


def construction_version(version) -> dict:
    return {
        "number": version.number,
        "origin": version.origin,
        "correct_answer": version.correct_answer,
        "options": version.options,
        "seed": version.seed,
        "assembly_params": version.assembly_params,
        "note": version.note,
        "created_by": _username(version.created_by),
        "created_at": iso(version.created_at),
    }


def construction_question(item, reference, profile, chain: dict) -> dict:
    return {
        "question_id": item.question_id,
        "character_id": item.character.key,
        "scenario_id": item.scenario.scenario_id,
        "stage": item.stage,
        "status": item.status,
        "version": item.version,
        "correct_answer": item.correct_answer,
        "seed": item.seed,
        "assembly_params": item.assembly_params,
        "source": item.source,
        "created_at": iso(item.created_at),
        "options": option_dicts(item),
        "reference": construction_reference(reference),
        "profile_version": (
            {
                "number": profile.number,
                "frozen_at": iso(profile.frozen_at),
                "is_demo_standin": profile.is_demo_standin,
            }
            if profile
            else None
        ),
        "versions": [construction_version(v) for v in item.versions.all()],
        "chain": chain,
    }


def construction_files(data: FinalSet) -> dict[str, bytes]:
    by_section = {name: fn(data.items) for name, fn in chain_sections()}
    questions = [
        construction_question(
            item,
            data.references[item.pk],
            data.profiles.get(item.character.key),
            {name: found.get(item.pk) for name, found in by_section.items()},
        )
        for item in data.items
    ]
    meta = {
        "chain_sections": sorted(by_section),
        "description": "Every final item with its key, option provenance, versions, "
        "reference and adjudication chain. Construction team only.",
        "format": EXPORT_FORMAT,
        "total_questions": len(questions),
    }
    return {
        "construction/items.json": sorted_json({"dataset_meta": meta, "questions": questions}),
        "construction/items.jsonl": jsonl(questions, sort_keys=True),
    }
