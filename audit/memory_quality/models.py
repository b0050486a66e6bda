"""The memory quality audit (seed 000 §2.2 Stage 3, App. B.6): versioned settings, audit
runs, flags with their evidence, repair attempts, the manual review and the memory
versions it produces. Memory rows live in annotation/; their history is kept here and
their fields change only through ``audit.memory_quality.services``.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from annotation.corpus.models import Character, Memory
from audit.memory_quality import criteria
from core.llm_runs.models import AbstractCallRecord, LlmRun, LlmUnit, RunStatus

CRITERION_CHOICES = [(number, f"{number}. {label}") for number, label in criteria.CRITERIA.items()]
MEMORY_TEXT_FIELDS = ("context", "content_summary", "content_full")
# What a version of a memory keeps: every field a repair, an edit or the sanitation
# may change (the three narrative fields) and the annotations the reviewer reads.
VERSIONED_FIELDS = (*MEMORY_TEXT_FIELDS, "psych_conclusion", "behavior_policy")


class AuditError(ValidationError):
    """A workflow step that cannot be taken; the message says what to do instead."""


# The note of a settings version and of a run (its column's length; issue #24 limits).
NOTE_MAX_CHARS = 300


class AuditSettings(models.Model):
    """One version of the admin-editable audit settings. Versions are never edited: a
    change is a new version, and each run names the version it used."""

    number = models.PositiveIntegerField(unique=True)
    note = models.CharField(max_length=NOTE_MAX_CHARS, blank=True)
    omniscient_patterns = models.JSONField(
        help_text="Criterion 1: post-hoc or future markers (App. L.3 forbidden expressions)."
    )
    adult_evaluation_patterns = models.JSONField(
        help_text="Criterion 2: adult-level retrospective phrases."
    )
    adult_evaluation_max_age = models.PositiveSmallIntegerField(
        default=criteria.ADULT_EVALUATION_MAX_AGE
    )
    psychoanalytic_terms = models.JSONField(help_text="Criterion 6: high-register terms.")
    low_intensity_threshold = models.FloatField(default=criteria.LOW_INTENSITY_THRESHOLD)
    context_words_min = models.PositiveSmallIntegerField(default=criteria.CONTEXT_WORDS[0])
    context_words_max = models.PositiveSmallIntegerField(default=criteria.CONTEXT_WORDS[1])
    summary_words_min = models.PositiveSmallIntegerField(default=criteria.SUMMARY_WORDS[0])
    summary_words_max = models.PositiveSmallIntegerField(default=criteria.SUMMARY_WORDS[1])
    duplicate_threshold = models.FloatField(default=criteria.DUPLICATE_THRESHOLD)
    age_windows = models.JSONField(
        help_text='Criterion 4 windows: [{"key", "first_age", "last_age"}, ...].'
    )
    length_max_chars = models.PositiveIntegerField(default=criteria.LENGTH_MAX_CHARS)
    guided_min_chars = models.PositiveIntegerField(default=criteria.GUIDED_LENGTH[0])
    guided_max_chars = models.PositiveIntegerField(default=criteria.GUIDED_LENGTH[1])
    max_repair_attempts = models.PositiveSmallIntegerField(default=criteria.MAX_REPAIR_ATTEMPTS)
    enabled_criteria = models.JSONField(default=list)
    narrator_labels = models.JSONField(
        default=dict, help_text="Sanitation: gendered label → gender-neutral label."
    )
    character_names = models.JSONField(
        default=dict, blank=True, help_text='Sanitation: {"CHAR_01": ["name", ...]} to remove.'
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-number"]
        verbose_name_plural = "audit settings"

    def __str__(self):
        return f"Audit settings v{self.number}"

    def as_config(self) -> criteria.AuditConfig:
        return criteria.AuditConfig(
            omniscient_patterns=tuple(self.omniscient_patterns),
            adult_evaluation_patterns=tuple(self.adult_evaluation_patterns),
            adult_evaluation_max_age=self.adult_evaluation_max_age,
            psychoanalytic_terms=tuple(self.psychoanalytic_terms),
            low_intensity_threshold=self.low_intensity_threshold,
            context_words=(self.context_words_min, self.context_words_max),
            summary_words=(self.summary_words_min, self.summary_words_max),
            duplicate_threshold=self.duplicate_threshold,
            windows=tuple(
                criteria.AgeWindow(w["key"], int(w["first_age"]), int(w["last_age"]))
                for w in self.age_windows
            ),
            length_max_chars=self.length_max_chars,
            guided_length=(self.guided_min_chars, self.guided_max_chars),
            enabled_criteria=frozenset(int(c) for c in self.enabled_criteria),
        )


class AuditRun(LlmRun):
    """One pass of criteria 1-6 over the memories, one unit per character (issue #33:
    its states are the one ``RunStatus``; start, cancel, resume and retry go through
    ``core.llm_runs.services.RunFlow``). ``error`` keeps the message of a run that
    failed as a whole before the run had units (migration 0007)."""

    settings_version = models.ForeignKey(
        AuditSettings, on_delete=models.PROTECT, related_name="runs"
    )
    note = models.CharField(max_length=NOTE_MAX_CHARS, blank=True)
    character_keys = models.JSONField(default=list, blank=True, help_text="Empty: every character.")
    memory_total = models.PositiveIntegerField(default=0)
    memory_done = models.PositiveIntegerField(default=0)
    # {"per_character": {key: memories audited}, "length_report": {...}, "seconds": s}
    summary = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    finalized_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"Audit run #{self.pk}"

    @property
    def percent(self) -> int:
        if not self.memory_total:
            return 100 if self.status == RunStatus.FINISHED else 0
        return int(100 * self.memory_done / self.memory_total)


class AuditUnit(LlmUnit):
    """The audit of one character's memories within a run: the unit a worker takes up,
    cancels, resumes and retries. Its cases, flags and progress commit together with its
    ``done`` state, so a unit yields its results once. The classifier's and the repair
    loop's calls on the character's memories add their tokens here."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting"
        RUNNING = "running", "Auditing"
        DONE = "done", "Audited"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    TERMINAL = (Status.DONE, Status.FAILED, Status.CANCELLED)

    run = models.ForeignKey(AuditRun, on_delete=models.CASCADE, related_name="units")
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    memory_count = models.PositiveIntegerField(default=0)
    length_report = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["run", "character__key"]
        constraints = [
            models.UniqueConstraint(fields=["run", "character"], name="audit_unit_unique")
        ]

    def __str__(self):
        return f"{self.run} · {self.character_id} ({self.status})"


class AuditCall(AbstractCallRecord):
    """One LLM call of the audit: the classifier's verdict on a memory, a repair
    attempt's rewrite, or the two calls of a rewrite's fact check (the original's facts
    extracted, then checked against the rewrite; ``services.fact_check``), all through
    ``core.llm_runs.services.record_call``."""

    class Kind(models.TextChoices):
        CLASSIFIER = "classifier", "Classifier"
        REPAIR = "repair", "Repair"
        FACT_EXTRACT = "fact_extract", "Fact extraction"
        FACT_CHECK = "fact_check", "Fact check"

    run = models.ForeignKey(AuditRun, on_delete=models.CASCADE, related_name="calls")
    kind = models.CharField(max_length=16, choices=Kind.choices)

    class Meta:
        ordering = ["pk"]

    def __str__(self):
        return f"{self.get_kind_display()} call {self.pk} ({self.outcome})"


class MemoryCase(models.Model):
    """One memory the run flagged, from the first flag to its resolution."""

    class Status(models.TextChoices):
        REPAIRING = "repairing", "Automated repair"
        REPAIRED = "repaired", "Passed after automated rewriting"
        REVIEW = "review", "Awaiting memory reviewer"
        SENIOR = "senior", "Confirmed: awaiting the senior expert's edit"
        REVISED = "revised", "Revised by the senior expert"
        FALSE_POSITIVE = "false_positive", "Accepted as false positive"

    OPEN = (Status.REPAIRING, Status.REVIEW, Status.SENIOR)

    class Decision(models.TextChoices):
        CONFIRMED = "confirmed", "Confirm the defect"
        FALSE_POSITIVE = "false_positive", "False positive: accept the memory as it is"

    run = models.ForeignKey(AuditRun, on_delete=models.CASCADE, related_name="cases")
    memory = models.ForeignKey(Memory, on_delete=models.PROTECT, related_name="audit_cases")
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.REPAIRING, db_index=True
    )
    initial_criteria = models.JSONField(default=list)
    repair_note = models.CharField(max_length=300, blank=True)
    decision = models.CharField(max_length=16, choices=Decision.choices, blank=True)
    decision_reason = models.TextField(blank=True)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    escalated = models.BooleanField(default=False)
    review_round = models.PositiveSmallIntegerField(
        default=1,
        help_text="1 for the first review; one more each time the senior expert sends an edit "
        "the re-audit keeps flagging back to the reviewing team (App. B.6).",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["character__key", "memory__event_age", "memory__sequence"]
        constraints = [
            models.UniqueConstraint(fields=["run", "memory"], name="audit_case_unique"),
        ]

    def __str__(self):
        return f"{self.memory.memory_id} ({self.get_status_display()})"


class MemoryFlag(models.Model):
    """One criterion a memory failed in one audit pass, with the matched evidence.
    A re-audit closes the pass's flags (``current=False``) and opens its own."""

    class Source(models.TextChoices):
        PATTERN = "pattern", "Pattern and TF-IDF checks"
        CLASSIFIER = "classifier", "LLM classifier"

    case = models.ForeignKey(MemoryCase, on_delete=models.CASCADE, related_name="flags")
    criterion = models.PositiveSmallIntegerField(choices=CRITERION_CHOICES)
    field = models.CharField(max_length=32)
    detail = models.CharField(max_length=500)
    spans = models.JSONField(default=list, help_text='[{"field", "start", "end", "text"}]')
    related_memory_id = models.CharField(max_length=64, blank=True)
    score = models.FloatField(null=True, blank=True)
    audit_pass = models.CharField(max_length=40, help_text='"initial", "repair 2", "senior edit 1"')
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.PATTERN)
    current = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["criterion", "pk"]
        indexes = [models.Index(fields=["case", "current"])]

    def __str__(self):
        return f"criterion {self.criterion} on {self.field}"


class ClassifierResult(models.Model):
    """The optional LLM classifier's verdict on one criterion, kept apart from the
    pattern result: it may confirm a pattern flag or add one the patterns missed."""

    class Verdict(models.TextChoices):
        CONFIRMS = "confirms", "Confirms the defect"
        REJECTS = "rejects", "Finds no defect"
        ADDS = "adds", "Adds a flag the patterns missed"
        FAILED = "failed", "The call failed"

    run = models.ForeignKey(AuditRun, on_delete=models.CASCADE, related_name="classifications")
    memory = models.ForeignKey(Memory, on_delete=models.PROTECT, related_name="+")
    criterion = models.PositiveSmallIntegerField(choices=CRITERION_CHOICES)
    verdict = models.CharField(max_length=16, choices=Verdict.choices)
    rationale = models.TextField(blank=True)
    call = models.ForeignKey(
        AuditCall, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run", "memory", "criterion"], name="audit_classifier_unique"
            )
        ]

    def __str__(self):
        return f"classifier on criterion {self.criterion}: {self.verdict}"


class RepairDefect(models.Model):
    """One defect of a flagged memory: a criterion failed on a field, by the pattern
    checks or the LLM classifier. App. B.6 allows up to three targeted repair attempts
    per defect (the settings version's ``max_repair_attempts``), counted here."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        REPAIRED = "repaired", "Repaired"
        EXHAUSTED = "exhausted", "Still flagged after its attempts"

    case = models.ForeignKey(MemoryCase, on_delete=models.CASCADE, related_name="defects")
    criterion = models.PositiveSmallIntegerField(choices=CRITERION_CHOICES)
    field = models.CharField(max_length=32)
    source = models.CharField(
        max_length=16, choices=MemoryFlag.Source.choices, default=MemoryFlag.Source.PATTERN
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    attempts_used = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["case", "criterion", "field"]
        constraints = [
            models.UniqueConstraint(
                fields=["case", "criterion", "field"], name="audit_repair_defect_unique"
            )
        ]

    def __str__(self):
        return f"criterion {self.criterion} on {self.field} ({self.status})"


class RepairAttempt(models.Model):
    """One automated rewrite of a flagged memory's defective fields (App. B.6), targeted
    at one defect; ``number`` counts the case's attempts, ``defect_attempt`` the
    defect's."""

    case = models.ForeignKey(MemoryCase, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveSmallIntegerField()
    defect = models.ForeignKey(
        RepairDefect, null=True, blank=True, on_delete=models.CASCADE, related_name="attempts"
    )
    defect_attempt = models.PositiveSmallIntegerField(default=0)
    checks = models.JSONField(
        default=list, blank=True, help_text='The re-check\'s checks: ["pattern", "classifier"].'
    )
    criteria = models.JSONField(help_text="The criteria the attempt was asked to repair.")
    fields = models.JSONField(help_text="The fields regenerated.")
    system_prompt = models.TextField()
    user_prompt = models.TextField()
    output = models.JSONField(null=True, blank=True)
    call = models.ForeignKey(
        AuditCall, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    error = models.TextField(blank=True)
    audit_findings = models.JSONField(default=list, help_text="Findings of the re-audit.")
    passed = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["case", "number"]
        constraints = [
            models.UniqueConstraint(fields=["case", "number"], name="audit_repair_attempt_unique")
        ]

    def __str__(self):
        return f"Repair attempt {self.number} of {self.case}"


class MemoryVersion(models.Model):
    """The memory's text fields as they were after each change; version 1 is the text
    the audit found. The Memory row always holds the newest version."""

    class Origin(models.TextChoices):
        ORIGINAL = "original", "As audited"
        REPAIR = "repair", "Automated repair"
        SENIOR_EDIT = "senior_edit", "Senior expert's edit"
        SANITIZED = "sanitized", "Post-audit sanitation"
        DEMO_DEFECT = "demo_defect", "Demo: planted defect"
        DEMO_PERSONAL_DATA = "demo_pii", "Demo: planted personal data (release hygiene)"

    memory = models.ForeignKey(Memory, on_delete=models.PROTECT, related_name="audit_versions")
    number = models.PositiveIntegerField()
    origin = models.CharField(max_length=16, choices=Origin.choices)
    fields = models.JSONField()
    case = models.ForeignKey(
        MemoryCase, null=True, blank=True, on_delete=models.SET_NULL, related_name="versions"
    )
    repair_attempt = models.OneToOneField(
        RepairAttempt, null=True, blank=True, on_delete=models.SET_NULL, related_name="version"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    note = models.TextField(blank=True)
    reaudit = models.JSONField(
        default=dict,
        blank=True,
        help_text='The re-audit of a repair or an edit: {"checks", "findings", "passed"}.',
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["memory", "number"]
        constraints = [
            models.UniqueConstraint(fields=["memory", "number"], name="audit_memory_version_unique")
        ]

    def __str__(self):
        return f"{self.memory.memory_id} v{self.number}"


class OverrideAgreement(models.Model):
    """One memory reviewer's agreement that a case's flags are false positives. The
    override takes effect once the reviewing team (``HEARTBENCH_MEMORY_AUDIT_OVERRIDE_TEAM``
    distinct reviewers, three in App. B.6) has agreed in the same review round."""

    case = models.ForeignKey(MemoryCase, on_delete=models.CASCADE, related_name="agreements")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.TextField()
    # The case's review round: an agreement counts only in its own round (a round the
    # senior opened concerns the edited text, not the text of an earlier round).
    review_round = models.PositiveSmallIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["case", "created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["case", "reviewer", "review_round"], name="audit_override_once_a_round"
            )
        ]

    def __str__(self):
        return f"{self.reviewer} agrees {self.case} is a false positive"


class TimelineEntry(models.Model):
    """The post-audit timeline: accepted, deduplicated memories in chronological order."""

    run = models.ForeignKey(AuditRun, on_delete=models.CASCADE, related_name="timeline")
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    memory = models.ForeignKey(Memory, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["character", "position"]
        constraints = [
            models.UniqueConstraint(fields=["run", "memory"], name="audit_timeline_unique")
        ]

    def __str__(self):
        return f"{self.character_id} #{self.position}"


class AuditEvent(models.Model):
    """Append-only history of the audit workflow: who did what, when."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    action = models.CharField(max_length=60)
    run = models.ForeignKey(AuditRun, null=True, blank=True, on_delete=models.CASCADE)
    case = models.ForeignKey(MemoryCase, null=True, blank=True, on_delete=models.CASCADE)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return self.action


class FactCheck(models.Model):
    """Whether a repair attempt's rewrite kept the facts of the memory it repaired
    (issue #37; ``services.fact_check``): the original's atomic facts, each fact's
    verdict against the rewrite, and the facts the rewrite added. A rewrite that clears
    its defect is kept only once this check passes; one that fails it goes back through
    the loop, the lost facts named in the next attempt's prompt."""

    class Status(models.TextChoices):
        EXTRACTING = "extracting", "Awaiting the original's facts"
        CHECKING = "checking", "Awaiting the check of the facts"
        PASSED = "passed", "Kept the facts"
        FAILED = "failed", "Lost facts"
        ERROR = "error", "Could not be checked"

    PENDING = (Status.EXTRACTING, Status.CHECKING)

    attempt = models.OneToOneField(
        RepairAttempt, on_delete=models.CASCADE, related_name="fact_check"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.EXTRACTING)
    original = models.JSONField(help_text="The narrative fields as the case found them.")
    repaired = models.JSONField(help_text="The narrative fields with the rewrite applied.")
    excluded = models.JSONField(
        default=list, blank=True, help_text="Flagged passages of the original: not facts to keep."
    )
    source_digest = models.CharField(max_length=64, db_index=True)
    facts = models.JSONField(default=list, blank=True, help_text="The original's atomic facts.")
    facts_reused = models.BooleanField(
        default=False, help_text="The facts came from an earlier check of the same original."
    )
    verdicts = models.JSONField(
        default=list, blank=True, help_text='[{"fact", "verdict", "note"}], one per fact.'
    )
    invented = models.JSONField(
        default=list, blank=True, help_text="Facts of the rewrite the original does not state."
    )
    omitted_rate = models.FloatField(null=True, blank=True)
    missing_count = models.PositiveSmallIntegerField(default=0)
    contradicted_count = models.PositiveSmallIntegerField(default=0)
    invented_count = models.PositiveSmallIntegerField(default=0)
    thresholds = models.JSONField(default=dict, blank=True, help_text="The limits applied.")
    reasons = models.JSONField(default=list, blank=True, help_text="Why the check failed.")
    extract_call = models.ForeignKey(
        AuditCall, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    check_call = models.ForeignKey(
        AuditCall, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["attempt"]

    def __str__(self):
        return f"Fact check of {self.attempt} ({self.status})"

    @property
    def kept_count(self) -> int:
        return sum(v["verdict"] == "present" for v in self.verdicts)

    @property
    def omitted_percent(self) -> str:
        return "" if self.omitted_rate is None else f"{100 * self.omitted_rate:.1f} %"

    @property
    def limit_percent(self) -> str:
        limit = (self.thresholds or {}).get("max_omitted_rate")
        return "" if limit is None else f"{100 * limit:.1f} %"

    @property
    def missing(self) -> list[str]:
        return [v["fact"] for v in self.verdicts if v["verdict"] == "missing"]

    @property
    def contradicted(self) -> list[str]:
        return [v["fact"] for v in self.verdicts if v["verdict"] == "contradicted"]
