"""The gates a (character, scenario) pair passes before generation takes it (issue #18):
the character's profile is frozen (profile review, seed 000 §2.2, App. B.3), the
scenario has completed its two-pass review (§2.3, App. C.2), and the character's memory
audit is finalized (App. B.6), so generation reads the audited corpus.

:func:`generation_gates` reads, with a fixed number of queries, what blocks each chosen
character and scenario and whom it waits for; the launch page and the API show it, and
``services.runs.generation_run_create`` refuses a blocked pair unless an admin overrides
the gates with a reason (each override is then a protocol deviation).
"""

from dataclasses import dataclass, field
from enum import StrEnum

from django.db.models import Count

from annotation.corpus.models import ProfileVersion
from annotation.scenario_review.models import ScenarioReview
from audit.memory_quality.corpus import finalized_runs_by_character
from audit.memory_quality.models import AuditRun, MemoryCase
from core.plurals import agree, counted


class Gate(StrEnum):
    PROFILE_FROZEN = "profile_frozen"
    SCENARIO_REVIEWED = "scenario_reviewed"
    AUDIT_FINALIZED = "memory_audit_finalized"


# The rule each gate holds, as a protocol deviation names it.
GATE_RULES = {
    Gate.PROFILE_FROZEN: "Generation uses a frozen profile version (profile review, App. B.3)",
    Gate.SCENARIO_REVIEWED: "Generation uses a scenario that completed review (App. C.2)",
    Gate.AUDIT_FINALIZED: "Generation reads the memories of a finalized memory audit (App. B.6)",
}

_CASE_WAITS_FOR = {
    MemoryCase.Status.REPAIRING: "the automated repair",
    MemoryCase.Status.REVIEW: "memory reviewers",
    MemoryCase.Status.SENIOR: "the senior expert's edit",
}


@dataclass(frozen=True)
class Block:
    """One gate a character or scenario does not pass yet."""

    gate: Gate
    subject: str  # the character key or scenario id
    why: str
    waits_for: str

    @property
    def rule(self) -> str:
        return GATE_RULES[self.gate]

    def as_dict(self) -> dict:
        return {
            "gate": self.gate.value,
            "subject": self.subject,
            "why": self.why,
            "waits_for": self.waits_for,
        }


@dataclass
class GateReport:
    """What blocks the chosen pairs. A pair is blocked by its character's blocks and its
    scenario's; ``profiles`` is the version each character would use (the latest frozen,
    else, only for an override, the latest)."""

    characters: list
    scenarios: list
    character_blocks: dict = field(default_factory=dict)  # character pk -> [Block]
    scenario_blocks: dict = field(default_factory=dict)  # scenario pk -> [Block]
    profiles: dict = field(default_factory=dict)  # character pk -> ProfileVersion

    @property
    def pairs(self) -> int:
        return len(self.characters) * len(self.scenarios)

    @property
    def blocked_pairs(self) -> int:
        blocked_c = sum(1 for c in self.characters if self.character_blocks.get(c.pk))
        blocked_s = sum(1 for s in self.scenarios if self.scenario_blocks.get(s.pk))
        ready = (len(self.characters) - blocked_c) * (len(self.scenarios) - blocked_s)
        return self.pairs - ready

    @property
    def blocks(self) -> list[Block]:
        """Every block: the characters' in key order, then the scenarios'."""
        out = [b for c in self.characters for b in self.character_blocks.get(c.pk, [])]
        return out + [b for s in self.scenarios for b in self.scenario_blocks.get(s.pk, [])]

    def pair_blocks(self, character, scenario) -> list[Block]:
        return self.character_blocks.get(character.pk, []) + self.scenario_blocks.get(
            scenario.pk, []
        )

    def unaudited(self) -> list:
        """The chosen characters whose memories no finalized audit covered."""
        return [
            c
            for c in self.characters
            if any(b.gate == Gate.AUDIT_FINALIZED for b in self.character_blocks.get(c.pk, []))
        ]

    def without_profile(self) -> list[str]:
        """Character keys with no profile version at all: no override can help them."""
        return [c.key for c in self.characters if c.pk not in self.profiles]

    def refusal(self) -> str:
        """The launch's refusal, naming each blocked character and scenario and whom it
        waits for."""
        lines = [f"{b.subject}: {b.why} (waits for {b.waits_for})" for b in self.blocks]
        return (
            f"{self.blocked_pairs} of the {counted(self.pairs, 'chosen pair')} "
            f"{agree(self.blocked_pairs, 'is', 'are')} not ready for "
            "generation: " + "; ".join(lines) + ". Leave them out, wait, or override the "
            "gates with a reason (recorded as a protocol deviation)."
        )


def generation_gates(*, characters, scenarios) -> GateReport:
    """The gates of every (character, scenario) pair of the chosen rows. Six queries
    whatever the number of characters and scenarios."""
    report = GateReport(characters=list(characters), scenarios=list(scenarios))
    _profile_gates(report)
    _scenario_gates(report)
    _audit_gates(report)
    return report


def _block(report: GateReport, where: dict, pk: int, block: Block) -> None:
    where.setdefault(pk, []).append(block)


def _profile_gates(report: GateReport) -> None:
    frozen, latest = {}, {}
    for version in ProfileVersion.objects.filter(character__in=report.characters).order_by(
        "character_id", "number"
    ):
        latest[version.character_id] = version
        if version.is_frozen:
            frozen[version.character_id] = version  # the latest frozen version wins
    for character in report.characters:
        if character.pk in frozen:
            report.profiles[character.pk] = frozen[character.pk]
            continue
        version = latest.get(character.pk)
        if version is None:
            why, waits_for = "no profile version at all", "an admin to import its profile"
        else:
            report.profiles[character.pk] = version
            why = f"no frozen profile version (latest: version {version.number}, under review)"
            waits_for = "the profile review: annotators' reviews, then the arbitrator's freeze"
        _block(
            report,
            report.character_blocks,
            character.pk,
            Block(Gate.PROFILE_FROZEN, character.key, why, waits_for),
        )


def _scenario_gates(report: GateReport) -> None:
    stages = dict(
        ScenarioReview.objects.filter(scenario__in=report.scenarios).values_list(
            "scenario_id", "stage"
        )
    )
    labels = dict(ScenarioReview.Stage.choices)
    for scenario in report.scenarios:
        stage = stages.get(scenario.pk)
        if stage == ScenarioReview.Stage.COMPLETE:
            continue
        where = labels[stage] if stage else "Pass 1: not started"
        _block(
            report,
            report.scenario_blocks,
            scenario.pk,
            Block(
                Gate.SCENARIO_REVIEWED,
                scenario.scenario_id,
                f"scenario review not complete ({where})",
                "the scenario reviewers",
            ),
        )


def _audit_gates(report: GateReport) -> None:
    finalized = finalized_runs_by_character(c.pk for c in report.characters)
    waiting = [c for c in report.characters if c.pk not in finalized]
    if not waiting:
        return
    # The latest unfinalized run that covers each waiting character says where it is.
    runs = list(
        AuditRun.objects.filter(finalized_at__isnull=True)
        .exclude(status=AuditRun.Status.FINISHED_WITH_FAILURES)  # the old "failed" (#33)
        .order_by("-created_at", "-pk")
        .values_list("pk", "status", "character_keys")
    )
    open_cases = {
        (row["run_id"], row["character_id"], row["status"]): row["n"]
        for row in MemoryCase.objects.filter(
            run_id__in=[pk for pk, _, _ in runs],
            character__in=waiting,
            status__in=MemoryCase.OPEN,
        )
        .values("run_id", "character_id", "status")
        .annotate(n=Count("pk"))
        .order_by()
    }
    for character in waiting:
        run = next(((pk, s) for pk, s, keys in runs if not keys or character.key in keys), None)
        if run is None:
            why = "no finalized memory audit covered its memories"
            waits_for = "an admin to run the memory audit and finalize it"
        elif run[1] != AuditRun.Status.FINISHED:
            why = f"memory audit run #{run[0]} is {run[1]}"
            waits_for = f"audit run #{run[0]} to finish, then its flagged memories"
        else:
            counts = {
                status: open_cases.get((run[0], character.pk, status), 0)
                for status in MemoryCase.OPEN
            }
            still_open = sum(counts.values())
            if still_open:
                memories = counted(still_open, "flagged memory", "flagged memories")
                why = f"{memories} still open in audit run #{run[0]}"
                waits_for = ", ".join(_CASE_WAITS_FOR[s] for s, n in counts.items() if n)
            else:
                why = f"memory audit run #{run[0]} is not finalized"
                waits_for = f"an admin to finalize audit run #{run[0]}"
        _block(
            report,
            report.character_blocks,
            character.pk,
            Block(Gate.AUDIT_FINALIZED, character.key, why, waits_for),
        )
