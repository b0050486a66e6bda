"""The corpus version an observer run read (issue 37: "recorded per corpus version").

At launch the run records, per character, what its report rests on:

* ``profile``: the frozen profile version whose design vector the ratings are compared
  with (its id and number);
* ``audit``: for memories, the latest finalized audit run that covered the character (the
  timeline its memories were sampled from; ``None`` when no audit was finalized);
* ``material``: each passage shown, with the first 16 hex digits of the SHA-256 of the
  text the observer read (a reference response also says whether it is superseded).

``corpus_version`` is the SHA-256 of that state (shown by its first 12 digits). The
report page and the pipeline page recompute the same state from the rows as they are now
(a handful of queries, whatever the run's size) and mark the report out of date when it
differs: a newer profile version was frozen, the memories were audited again, a shown
passage's text changed or is gone, a reference was superseded.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from adjudication.arbitration.models import ReferenceResponse
from audit.memory_quality.corpus import finalized_runs_by_character
from audit.observers import sampling
from audit.observers.selectors import frozen_profiles
from core.display import character_name

SHOWN_DIGITS = 12


def _text_hash(piece) -> str:
    text = f"{piece.heading}\n{piece.text}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def fingerprint(state: dict) -> str:
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


def corpus_state(target: str, characters: list[tuple[int, str, int, int, list[str]]]) -> dict:
    """{character key: state} for ``characters`` as (character id, key, profile version
    id, its number, material ids), read now. Four queries at most."""
    ids = [c[0] for c in characters]
    audits = finalized_runs_by_character(ids) if target == "memories" else {}
    material = [m for c in characters for m in c[4]]
    texts = {p.id: _text_hash(p) for p in sampling.shown_texts(target, material)}
    superseded = set()
    if target == "references" and material:
        superseded = {
            str(pk)
            for pk in ReferenceResponse.objects.filter(
                pk__in=[int(m) for m in material], superseded_at__isnull=False
            ).values_list("pk", flat=True)
        }
    state = {}
    for character_id, key, profile_id, number, shown in characters:
        state[key] = {
            "profile": [profile_id, number],
            "audit": audits.get(character_id),
            "material": {
                m: texts.get(m, "missing") + (" superseded" if m in superseded else "")
                for m in shown
            },
        }
    return state


def _run_characters(run) -> list[tuple[int, str, int, int, list[str]]]:
    """One row per character of the run (its units share the material): one query."""
    seen: dict[int, tuple] = {}
    for row in run.units.order_by("character__key", "pk").values_list(
        "character_id",
        "character__key",
        "profile_version_id",
        "profile_version__number",
        "material",
    ):
        seen.setdefault(row[0], (*row[:4], list(row[4])))
    return list(seen.values())


def record_corpus_version(run) -> None:
    """Store the state the run reads (at launch, once its units exist)."""
    state = corpus_state(run.target, _run_characters(run))
    run.corpus = state
    run.corpus_version = fingerprint(state)
    run.save(update_fields=["corpus", "corpus_version"])


def _current_state(run) -> dict:
    """The state as it is now: each character's latest frozen profile version (not the
    one the run compared), its latest audit, its shown passages' texts now."""
    characters = _run_characters(run)
    latest = frozen_profiles([c[0] for c in characters])
    now = []
    for character_id, key, _profile_id, _number, shown in characters:
        version = latest.get(character_id)
        pair = (version.pk, version.number) if version else (None, None)
        now.append((character_id, key, *pair, shown))
    return corpus_state(run.target, now)


@dataclass(frozen=True)
class CorpusStatus:
    """Which corpus version a run's report is for, and what changed since."""

    recorded: str  # the full fingerprint, "" for a run made before versions were kept
    current: str
    changes: list[str]

    @property
    def shown(self) -> str:
        return self.recorded[:SHOWN_DIGITS]

    @property
    def out_of_date(self) -> bool:
        return bool(self.recorded) and self.recorded != self.current


def corpus_status(run) -> CorpusStatus:
    """The run's recorded version against the corpus now, with the changes in words."""
    if not run.corpus_version:
        return CorpusStatus("", "", [])
    now = _current_state(run)
    changes = []
    for key, then in sorted((run.corpus or {}).items()):
        name = character_name(key)
        current = now.get(key) or {}
        if current.get("profile") != then["profile"]:
            changes.append(f"{name}: a newer profile version was frozen")
        if current.get("audit") != then["audit"]:
            changes.append(f"{name}: its memories were audited again")
        gone = [m for m, h in current.get("material", {}).items() if h != then["material"].get(m)]
        if gone:
            n = len(gone)
            changes.append(
                f"{name}: {n} of the passages shown {'has' if n == 1 else 'have'} changed, "
                "been superseded or been removed"
            )
    return CorpusStatus(run.corpus_version, fingerprint(now), changes)
