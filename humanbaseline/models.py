"""Models of the matched-information human baseline (seed 000 §3.2, App. J).

!!! BLINDING !!!  A participant's pages are built from :class:`StudyItem` materials
(the character by number, occupation, the stored retrieval set, scenario, options in
order) and never from keys, families, profiles or predictions. Those live here for admins only:
``ItemSourceFamily.family``, ``SelectionItem.family``, reports and imported predictions.
"""

import uuid

from django.conf import settings
from django.db import models

from adjudication.mcq.models import OPTION_LABELS, McqItem
from annotation.generation.models import ModelFamily
from core.life_stages import LIFE_STAGE_CHOICES
from core.text_rules import NAME, NOTE, TEXT
from evaluation.models import RetrievalSet

from .subset import EXPERT_REWRITE

LETTER_CHOICES = [(x, x) for x in OPTION_LABELS]
# An item's answer-key source: the family of the candidate its reference came from, or
# the arbitrator's own rewrite (App. D.2), which no family wrote.
SOURCE_CHOICES = [*ModelFamily.choices, (EXPERT_REWRITE, "Expert rewrite")]


# Issue #24: the limit of each text a person types here (the forms, the API and the
# services use these; a column's own length where the column sets one).
CONSENT_VERSION_MAX = 40
MODEL_LABEL_MAX = 120
PASSWORD_MAX = NAME
PAY_TEXT_MAX = 500
PRACTICE_REASON_MAX = NOTE
STUDY_TEXT_LIMITS = {
    "name": NAME,
    "consent_version": CONSENT_VERSION_MAX,
    "consent_text": TEXT,
    "briefing": TEXT,
    "pay_text": PAY_TEXT_MAX,
}
STUDY_TEXT_LABELS = {
    "consent_version": "Consent version",
    "consent_text": "Consent text",
    "pay_text": "Pay",
}


class BaselineError(Exception):
    """A baseline workflow step that cannot be done; ``messages`` say what to fix."""

    def __init__(self, *messages):
        super().__init__(" ".join(messages))
        self.messages = list(messages)


# What the database stores (BigIntegerField, PositiveIntegerField) and a random generator
# accepts as a seed (numpy: not negative).
SEED_MAX = 2**63 - 1
COUNT_MAX = 2**31 - 1


def check_whole(label: str, value: int, high: int):
    """Refuse a whole number outside 0..``high`` with a message naming the field."""
    if not 0 <= value <= high:
        raise BaselineError(f"The {label} must be a whole number from 0 to {high}; {value} is not.")


class BaselineNotFound(BaselineError):
    """The record a participant's request names (an item position, a practice item) is not
    theirs or does not exist: a 404, not a form error."""


class ItemSourceFamily(models.Model):
    """The answer-key source of an item, as the selection uses it: a model family, or
    ``expert_rewrite`` for a reference the arbitrator rewrote.

    Set from the item's adjudicated reference (``reference.source_family``, or its
    decision type when rewritten) or by an admin's CSV upload (question_id → source) for
    items imported without provenance.
    """

    item = models.OneToOneField(McqItem, on_delete=models.CASCADE, related_name="+")
    family = models.CharField(max_length=16, choices=SOURCE_CHOICES)
    origin = models.CharField(max_length=200)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"{self.item_id}: {self.family}"


class SubsetSelection(models.Model):
    """One run of the ILP (App. J "Item subset"): its parameters, seed and outcome.

    ``parameters`` holds the quotas, the hand-set ranges and tolerances, and the study's
    layout with every range the model used. ``proposal`` is set when the run is
    infeasible: the largest feasible study's quotas and ranges, what keeps it from being
    larger (``binding``), its notes and whether the solver proved it the largest
    (``proven``) (``largest_study.largest_feasible``).
    """

    seed = models.BigIntegerField()
    parameters = models.JSONField()
    feasible = models.BooleanField()
    failed_at = models.CharField(max_length=16, blank=True)
    problems = models.JSONField(default=list, blank=True)
    n_candidates = models.PositiveIntegerField()
    n_without_family = models.PositiveIntegerField(default=0)
    objective = models.FloatField(null=True, blank=True)
    # What the subset cannot cover (cells without a candidate): shown, not a failure.
    notes = models.JSONField(default=list, blank=True)
    proposal = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"selection #{self.pk} (seed {self.seed})"


class SelectionItem(models.Model):
    selection = models.ForeignKey(SubsetSelection, on_delete=models.CASCADE, related_name="items")
    item = models.ForeignKey(McqItem, on_delete=models.PROTECT, related_name="+")
    # Snapshots of what the ILP balanced, so the record stays true if an item changes.
    family = models.CharField(max_length=16)
    character_key = models.CharField(max_length=16)
    stage = models.CharField(max_length=32, choices=LIFE_STAGE_CHOICES)

    class Meta:
        ordering = ["selection", "item__question_id"]
        constraints = [
            models.UniqueConstraint(fields=["selection", "item"], name="selection_item_unique")
        ]

    def __str__(self):
        return f"selection {self.selection_id}: item {self.item_id}"


class BaselineStudy(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    name = models.CharField(max_length=200)
    selection = models.ForeignKey(SubsetSelection, on_delete=models.PROTECT, related_name="+")
    consent_version = models.CharField(max_length=CONSENT_VERSION_MAX)
    consent_text = models.TextField()
    briefing = models.TextField()
    # What a participant is paid, in the admin's words ("£12 an hour of recorded study
    # time"); the consent page shows it beside the expected duration.
    pay_text = models.CharField(max_length=PAY_TEXT_MAX, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    invitation_token = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    retrieval_method = models.CharField(max_length=16)
    k = models.PositiveSmallIntegerField()
    # The end of the study for a recruitment pool (Prolific, SONA): the code shown to a
    # participant who finalized, and where to send them (placeholders {code}, {pool_id},
    # {pool}; without any, ``cc=<code>`` is appended). See ``services.completion_url``.
    completion_code = models.CharField(max_length=64, blank=True)
    completion_url = models.CharField(max_length=500, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "baseline studies"

    def __str__(self):
        return self.name


class StudyItem(models.Model):
    """One item a participant sees, with the retrieval set fixed when the study was made.

    ``is_practice`` items come before the study, are not in the subset and are the only
    ones with feedback: the expected answer and ``practice_reason``, why it is expected
    (set by the admin; at creation, the reference's own reasoning when it has one).

    The word counts are what a participant reads of the item, counted when the study is
    made (``reading.count_words``): they give the study's expected duration.
    """

    study = models.ForeignKey(BaselineStudy, on_delete=models.CASCADE, related_name="items")
    item = models.ForeignKey(McqItem, on_delete=models.PROTECT, related_name="+")
    is_practice = models.BooleanField(default=False)
    position = models.PositiveSmallIntegerField()
    retrieval_set = models.ForeignKey(RetrievalSet, on_delete=models.PROTECT, related_name="+")
    scenario_words = models.PositiveIntegerField(default=0)
    option_words = models.PositiveIntegerField(default=0)
    memory_words = models.PositiveIntegerField(default=0)
    practice_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["study", "is_practice", "position"]
        constraints = [
            models.UniqueConstraint(fields=["study", "item"], name="study_item_unique"),
            models.UniqueConstraint(
                fields=["study", "is_practice", "position"], name="study_item_position_unique"
            ),
        ]

    def __str__(self):
        return f"study {self.study_id} {'practice' if self.is_practice else 'item'} {self.position}"


# The start of the placeholder an erased participant's username becomes (issue #36).
ERASED_PREFIX = "erased-"


class ParticipationQuerySet(models.QuerySet):
    def counted(self):
        """The participations whose answers enter results: finalized and never withdrawn.

        Every report, statistic and export that reads baseline answers starts here (or at
        ``ItemResponse.objects.counted()``), so a withdrawal reaches all of them at once."""
        return self.filter(status=Participation.Status.FINALIZED, withdrawn_at__isnull=True)

    def taking_part(self):
        """Participations that have not withdrawn (nor declined)."""
        return self.exclude(
            status__in=[Participation.Status.WITHDRAWN, Participation.Status.DECLINED]
        )


class ItemResponseQuerySet(models.QuerySet):
    def counted(self):
        """Responses of counted participations (see ``ParticipationQuerySet.counted``)."""
        return self.filter(
            participation__status=Participation.Status.FINALIZED,
            participation__withdrawn_at__isnull=True,
        )


class Participation(models.Model):
    """One person's way through one study.

    ``pool``/``pool_id`` name the person in the recruitment pool the invitation link came
    from (Prolific's PROLIFIC_PID, a SONA id), for credit or payment: admins only (the
    study page, the time-on-task CSV), never another participant or the research team.
    """

    class Pool(models.TextChoices):
        PROLIFIC = "prolific", "Prolific"
        SONA = "sona", "SONA"

    class Status(models.TextChoices):
        INVITED = "invited", "Invited"
        DECLINED = "declined", "Declined consent"
        CONSENTED = "consented", "Consented"
        STARTED = "started", "Answering"
        FINALIZED = "finalized", "Finalized"
        # Issue #36: the participant withdrew; their answers are kept apart and enter no
        # report, statistic or export (``Participation.objects.counted()``).
        WITHDRAWN = "withdrawn", "Withdrew"

    study = models.ForeignKey(BaselineStudy, on_delete=models.PROTECT, related_name="participants")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="baseline_participations"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.INVITED)
    enrolled_via = models.CharField(max_length=16)
    pool = models.CharField(max_length=16, choices=Pool.choices, blank=True)
    pool_id = models.CharField(max_length=64, blank=True)
    # Prolific's STUDY_ID and SESSION_ID, kept to match its submissions.
    pool_study_id = models.CharField(max_length=64, blank=True)
    pool_session_id = models.CharField(max_length=64, blank=True)
    consent_version = models.CharField(max_length=CONSENT_VERSION_MAX, blank=True)
    consent_decided_at = models.DateTimeField(null=True, blank=True)
    briefing_done_at = models.DateTimeField(null=True, blank=True)
    practice_done_at = models.DateTimeField(null=True, blank=True)
    # The item order: ``numpy.random.default_rng(order_seed).permutation`` of the study
    # items by position; the resulting order is also stored in ItemResponse.position.
    order_seed = models.BigIntegerField()
    started_at = models.DateTimeField(null=True, blank=True)
    finalized_at = models.DateTimeField(null=True, blank=True)
    # Time on task is counted up to here: a report of time adds at most the wall-clock
    # time since this moment (or since started_at), so the sum never outruns the clock.
    time_counted_until = models.DateTimeField(null=True, blank=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ParticipationQuerySet.as_manager()

    class Meta:
        ordering = ["study", "created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["study", "user"], name="participation_unique")
        ]

    def __str__(self):
        return f"{self.user} in {self.study}"


class ItemResponse(models.Model):
    """A participant's place for one study item: its position in their order, the current
    answer (revisable until finalize) and the time spent on it."""

    participation = models.ForeignKey(
        Participation, on_delete=models.CASCADE, related_name="responses"
    )
    study_item = models.ForeignKey(StudyItem, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveSmallIntegerField()
    choice = models.CharField(max_length=1, choices=LETTER_CHOICES, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    revisions = models.PositiveIntegerField(default=0)
    seconds = models.FloatField(default=0)

    objects = ItemResponseQuerySet.as_manager()

    class Meta:
        ordering = ["participation", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["participation", "position"], name="response_position_unique"
            ),
            models.UniqueConstraint(
                fields=["participation", "study_item"], name="response_item_unique"
            ),
        ]

    def __str__(self):
        return f"{self.participation_id} #{self.position}: {self.choice or '-'}"


class TimeReport(models.Model):
    """One report of time on an item, named by the page that sent it, so that a report
    sent twice (a retried save, a second leave event) is counted once."""

    response = models.ForeignKey(
        ItemResponse, on_delete=models.CASCADE, related_name="time_reports"
    )
    report_id = models.CharField(max_length=64)
    seconds = models.FloatField()
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["response", "received_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["response", "report_id"], name="time_report_once")
        ]

    def __str__(self):
        return f"{self.response_id}: {self.seconds:.1f} s ({self.report_id})"


class AnswerEvent(models.Model):
    """Every saved answer, in order: the history behind ``ItemResponse.choice``."""

    response = models.ForeignKey(ItemResponse, on_delete=models.CASCADE, related_name="events")
    choice = models.CharField(max_length=1, choices=LETTER_CHOICES)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["response", "at", "pk"]

    def __str__(self):
        return f"{self.response_id}: {self.choice}"


class PracticeAnswer(models.Model):
    participation = models.ForeignKey(
        Participation, on_delete=models.CASCADE, related_name="practice_answers"
    )
    study_item = models.ForeignKey(StudyItem, on_delete=models.PROTECT, related_name="+")
    choice = models.CharField(max_length=1, choices=LETTER_CHOICES)
    answered_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["participation", "study_item"], name="practice_answer_unique"
            )
        ]

    def __str__(self):
        return f"{self.participation_id} practice {self.study_item_id}: {self.choice}"


class WorkSession(models.Model):
    """A stretch of continuous activity; a gap longer than the idle limit starts a new one.

    Payment is by the hour (App. J), so the export sums these per participant.
    """

    participation = models.ForeignKey(
        Participation, on_delete=models.CASCADE, related_name="sessions"
    )
    started_at = models.DateTimeField()
    last_activity_at = models.DateTimeField()

    class Meta:
        ordering = ["participation", "started_at"]

    def __str__(self):
        return f"{self.participation_id} from {self.started_at:%Y-%m-%d %H:%M}"

    @property
    def seconds(self) -> float:
        return (self.last_activity_at - self.started_at).total_seconds()


class ImportedPrediction(models.Model):
    """A model's answer letter on an item, uploaded as CSV (question_id → letter per model)."""

    model_label = models.CharField(max_length=MODEL_LABEL_MAX)
    item = models.ForeignKey(McqItem, on_delete=models.CASCADE, related_name="+")
    letter = models.CharField(max_length=1, choices=LETTER_CHOICES, blank=True)
    origin = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["model_label", "item"]
        constraints = [
            models.UniqueConstraint(
                fields=["model_label", "item"], name="imported_prediction_unique"
            )
        ]

    def __str__(self):
        return f"{self.model_label} {self.item_id}: {self.letter or '-'}"


class BaselineReport(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Queued"
        RUNNING = "running", "Computing"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    study = models.ForeignKey(BaselineStudy, on_delete=models.CASCADE, related_name="reports")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    seed = models.BigIntegerField()
    n_boot = models.PositiveIntegerField()
    n_permutations = models.PositiveIntegerField()
    results = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"report {self.pk} of study {self.study_id} ({self.status})"


class BestModelChoice(models.Model):
    """The model App. J sets against the humans, fixed before the report: the one of the
    admin's Naive-RAG evaluation runs with the highest accuracy on the full final set, or
    named by the admin in advance.

    Append-only: fixing it again adds a row, the latest row is the study's best model. A
    row made once participants have answered carries a reason (``after_answers``) and a
    protocol deviation, and the report lists it.
    """

    class Method(models.TextChoices):
        FULL_BENCHMARK = "full_benchmark", "Highest accuracy on the full final set"
        ADMIN = "admin", "Named by the admin in advance"

    study = models.ForeignKey(
        BaselineStudy, on_delete=models.CASCADE, related_name="best_model_choices"
    )
    model_label = models.CharField(max_length=MODEL_LABEL_MAX)
    method = models.CharField(max_length=16, choices=Method.choices)
    # Full-benchmark: [{"run_id", "label", "accuracy", "n_items"}] of every run compared.
    runs = models.JSONField(default=list, blank=True)
    n_final_items = models.PositiveIntegerField(null=True, blank=True)
    tied_with = models.JSONField(default=list, blank=True)
    reason = models.TextField(blank=True)
    after_answers = models.BooleanField(default=False)
    chosen_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    chosen_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["study", "chosen_at", "pk"]

    def __str__(self):
        return f"study {self.study_id}: best model {self.model_label} ({self.method})"


class ParticipantErasure(models.Model):
    """The record that an admin erased a participant's personal data (issue #36).

    It holds no personal field: the placeholder the username became, what was erased
    (``scope``) and how many rows each step changed. The participant's answers, if the
    scope kept them, stay under the placeholder and enter no result once withdrawn."""

    class Scope(models.TextChoices):
        PERSONAL = "personal", "Personal data (name, pool ids, sessions); answers kept"
        ALL = "all", "All their data, answers included"

    study = models.ForeignKey(BaselineStudy, on_delete=models.PROTECT, related_name="erasures")
    scope = models.CharField(max_length=16, choices=Scope.choices)
    placeholder = models.CharField(max_length=150)
    counts = models.JSONField(default=dict, blank=True)
    erased_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    erased_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["study", "erased_at", "pk"]

    def __str__(self):
        return f"erasure {self.pk} ({self.scope}) in study {self.study_id}"
