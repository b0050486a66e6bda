"""Serializers of the human-baseline API (/api/baseline/). Admins only: they may see the
answer-key sources, the keys' families and the report; nothing here is ever served to a
participant (the participant's study stays in the browser, built by ``item_materials``).
"""

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field, inline_serializer
from rest_framework import serializers

from core.text_rules import NOTE, SerializerTextRules

from ..models import (
    MODEL_LABEL_MAX,
    PASSWORD_MAX,
    STUDY_TEXT_LIMITS,
    BaselineReport,
    BaselineStudy,
    Participation,
)
from ..report import report_rows
from ..subset import BALANCE_GROUPS, DEFAULT_QUOTAS

SOURCES_TEXT = ", ".join(source for source, _ in DEFAULT_QUOTAS)

# --- Sources and predictions --------------------------------------------------------------


class ItemSourceSerializer(serializers.Serializer):
    question_id = serializers.CharField(source="item.question_id")
    family = serializers.CharField(help_text=f"The answer-key source: {SOURCES_TEXT}.")
    origin = serializers.CharField(help_text="'reference', or 'csv:<file name>'.")
    updated_at = serializers.DateTimeField()


class BaselinePredictionSerializer(serializers.Serializer):
    model_label = serializers.CharField()
    question_id = serializers.CharField(source="item.question_id")
    letter = serializers.CharField(help_text="A–D; empty for an invalid response.")
    origin = serializers.CharField()
    created_at = serializers.DateTimeField()


class CsvUploadSerializer(serializers.Serializer):
    """Documents the multipart upload (the page's file field)."""

    file = serializers.FileField()


FamiliesInputSerializer = inline_serializer(
    "BaselineFamiliesInput",
    {
        "file": serializers.FileField(
            required=False, help_text="A question_id,family CSV (multipart)."
        ),
        "from": serializers.ChoiceField(
            choices=["references"],
            required=False,
            help_text="'references': copy each final item's source from its reference "
            "instead of uploading a CSV.",
        ),
    },
)


class ImportCountSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    message = serializers.CharField()


class SourceCountsSerializer(serializers.Serializer):
    counts = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Final items per answer-key source, every source listed, then '(none)'.",
    )


# --- Selections ---------------------------------------------------------------------------


class SelectionRowSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    seed = serializers.IntegerField()
    feasible = serializers.BooleanField()
    failed_at = serializers.CharField(help_text="'', 'precheck' or 'solver'.")
    n_items = serializers.IntegerField()
    n_candidates = serializers.IntegerField()
    n_without_family = serializers.IntegerField()
    created_by = serializers.CharField(source="created_by.username")
    created_at = serializers.DateTimeField()


class BaselineSelectionSerializer(SelectionRowSerializer):
    parameters = serializers.JSONField(
        help_text="Quotas, ranges set by hand, tolerances, and every range the model used."
    )
    problems = serializers.ListField(child=serializers.CharField())
    notes = serializers.ListField(child=serializers.CharField())
    proposal = serializers.JSONField(
        help_text="When infeasible: the largest feasible study (the most items any choice of "
        "quotas admits under App. J's scaled ranges, at most the size asked for): its quotas "
        "and ranges (send the quotas back as a new selection to take it), `binding` (what "
        "keeps it from being larger), `notes` and `proven`; {} otherwise."
    )
    objective = serializers.FloatField(allow_null=True)
    tables = serializers.SerializerMethodField()

    def get_tables(self, selection) -> dict:
        """Selected items per character × life-stage bin, overall and per source."""
        tables = self.context["tables"]

        def table(t):
            return {
                "rows": [
                    {"character": c, "counts": counts, "total": total}
                    for c, counts, total in t["rows"]
                ],
                "totals": t["totals"],
                "n": t["n"],
            }

        return {
            "stages": [key for key, _ in tables["stages"]],
            "overall": table(tables["overall"]),
            "sources": {family: table(t) for family, t in tables["families"]},
        }


SELECTION_FIELDS_HELP = (
    f"seed; quota_<source> for {SOURCES_TEXT} (the subset size is their sum); for each "
    f"balance group ({', '.join(BALANCE_GROUPS)}) optional <group>_min and <group>_max "
    "(both or neither) and <group>_slack; held_out_scenarios (scenario_ids, a list or one "
    "per line): their items stay out of the candidates, for practice."
)


class SelectionInputSerializer(serializers.Serializer):
    """The selection form's fields (documented; the form validates them)."""

    seed = serializers.IntegerField()
    held_out_scenarios = serializers.ListField(child=serializers.CharField(), required=False)
    quota_gemini = serializers.IntegerField(min_value=0)
    quota_claude = serializers.IntegerField(min_value=0)
    quota_gpt = serializers.IntegerField(min_value=0)
    quota_expert_rewrite = serializers.IntegerField(min_value=0)


class SelectionItemSerializer(serializers.Serializer):
    question_id = serializers.CharField(source="item.question_id")
    family = serializers.CharField(help_text="The answer-key source the ILP balanced.")
    character = serializers.CharField(source="character_key")
    stage = serializers.CharField()


# --- Studies ------------------------------------------------------------------------------


class StudyRowSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=BaselineStudy.Status.choices)
    selection = serializers.IntegerField(source="selection_id")
    n_participants = serializers.IntegerField()
    n_finalized = serializers.IntegerField()
    created_at = serializers.DateTimeField()


class BestModelChoiceSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    model_label = serializers.CharField()
    method = serializers.CharField(help_text="full_benchmark or admin.")
    runs = serializers.JSONField(
        help_text="[{run_id, label, accuracy, n_items}] of every run compared."
    )
    n_final_items = serializers.IntegerField(allow_null=True)
    tied_with = serializers.ListField(child=serializers.CharField())
    reason = serializers.CharField()
    after_answers = serializers.BooleanField()
    chosen_by = serializers.CharField(source="chosen_by.username")
    chosen_at = serializers.DateTimeField()


class StudySerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=BaselineStudy.Status.choices)
    selection = serializers.IntegerField(source="selection_id")
    consent_version = serializers.CharField()
    consent_text = serializers.CharField()
    briefing = serializers.CharField()
    pay_text = serializers.CharField(
        help_text="What a participant is paid, shown on the consent page; may be empty."
    )
    retrieval_method = serializers.CharField()
    k = serializers.IntegerField()
    invitation_url = serializers.SerializerMethodField(
        help_text="The link participants sign up with."
    )
    n_items = serializers.IntegerField()
    n_practice = serializers.IntegerField()
    best_model = serializers.SerializerMethodField()
    report_status = serializers.SerializerMethodField()
    created_by = serializers.CharField(source="created_by.username")
    created_at = serializers.DateTimeField()

    def get_invitation_url(self, study) -> str:
        path = reverse("baseline:join", args=[study.invitation_token])
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path

    @extend_schema_field(BestModelChoiceSerializer(allow_null=True))
    def get_best_model(self, study):
        """The current best model (the latest fix), or null before it is fixed."""
        current = self.context.get("best_model")
        return BestModelChoiceSerializer(current).data if current else None

    def get_report_status(self, study) -> str | None:
        """The latest report's status (pending, running, done, failed), or null."""
        latest = self.context.get("latest_report")
        return latest.status if latest else None


class StudyInputSerializer(SerializerTextRules, serializers.Serializer):
    """The study form's fields (documented; the form validates them)."""

    name = serializers.CharField(max_length=STUDY_TEXT_LIMITS["name"])
    selection = serializers.IntegerField(help_text="A feasible selection's id.")
    consent_version = serializers.CharField(max_length=STUDY_TEXT_LIMITS["consent_version"])
    consent_text = serializers.CharField(max_length=STUDY_TEXT_LIMITS["consent_text"])
    briefing = serializers.CharField(max_length=STUDY_TEXT_LIMITS["briefing"])
    pay_text = serializers.CharField(
        max_length=STUDY_TEXT_LIMITS["pay_text"],
        required=False,
        allow_blank=True,
        help_text="What a participant is paid, as they read it on the consent page.",
    )
    practice_question_ids = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="From scenarios outside the subset; or leave out and give practice_count.",
    )
    practice_count = serializers.IntegerField(required=False, min_value=0)
    retrieval_method = serializers.ChoiceField(choices=["bm25", "tfidf"])
    k = serializers.IntegerField(min_value=1, max_value=200)


class StudyStatusInputSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=BaselineStudy.Status.choices)


class StudyItemSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    is_practice = serializers.BooleanField()
    question_id = serializers.CharField(source="item.question_id")
    character = serializers.CharField(source="item.character.key")
    stage = serializers.CharField(source="item.stage")
    retrieval_set = serializers.IntegerField(source="retrieval_set_id")


# --- Participants and time on task --------------------------------------------------------


class ParticipantSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    username = serializers.CharField(source="user.username")
    status = serializers.CharField(help_text=", ".join(Participation.Status.values))
    enrolled_via = serializers.CharField(help_text="'invitation' or 'admin'.")
    consent_version = serializers.CharField()
    consent_decided_at = serializers.DateTimeField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    finalized_at = serializers.DateTimeField(allow_null=True)
    n_items = serializers.SerializerMethodField()
    n_answered = serializers.IntegerField()
    item_seconds = serializers.FloatField(help_text="Time on items, summed.")
    n_sessions = serializers.SerializerMethodField()
    session_seconds = serializers.FloatField(help_text="Work-session time (payment).")
    created_at = serializers.DateTimeField()

    def get_n_items(self, p) -> int:
        return self.context["n_items"]

    def get_n_sessions(self, p) -> int:
        return len(p.work_sessions)

    def to_representation(self, p):
        p.item_seconds = p.item_seconds or 0.0
        return super().to_representation(p)


class ParticipantInputSerializer(SerializerTextRules, serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(
        max_length=PASSWORD_MAX, help_text="Give it to the participant."
    )


class TimeRowSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="'item' or 'session'.")
    participant = serializers.CharField()
    position = serializers.IntegerField(allow_null=True)
    question_id = serializers.CharField()
    start = serializers.DateTimeField(allow_null=True)
    end = serializers.DateTimeField(allow_null=True)
    seconds = serializers.FloatField()


# --- Best model and report ----------------------------------------------------------------


class BestModelInputSerializer(SerializerTextRules, serializers.Serializer):
    runs = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="Naive-RAG run ids."
    )
    model_label = serializers.CharField(
        required=False, allow_blank=True, max_length=MODEL_LABEL_MAX
    )
    reason = serializers.CharField(required=False, allow_blank=True, max_length=NOTE)


class ReportInputSerializer(serializers.Serializer):
    seed = serializers.IntegerField()
    n_boot = serializers.IntegerField(min_value=0)
    n_permutations = serializers.IntegerField(min_value=0)


class ReportRowSerializer(serializers.Serializer):
    section = serializers.CharField()
    statistic = serializers.CharField()
    estimate = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)


class ReportSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    status = serializers.CharField(help_text=", ".join(BaselineReport.Status.values))
    seed = serializers.IntegerField()
    n_boot = serializers.IntegerField()
    n_permutations = serializers.IntegerField()
    error = serializers.CharField()
    requested_by = serializers.CharField(source="requested_by.username")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    results = serializers.SerializerMethodField()
    rows = serializers.SerializerMethodField()

    def get_results(self, report) -> dict | None:
        """Every statistic of App. J's report (null until it is done)."""
        return report.results if report.status == BaselineReport.Status.DONE else None

    @extend_schema_field(ReportRowSerializer(many=True))
    def get_rows(self, report):
        """The report CSV's rows (section, statistic, estimate, ci_low, ci_high)."""
        if report.status != BaselineReport.Status.DONE:
            return []
        return [
            {"section": s, "statistic": n, "estimate": v, "ci_low": lo, "ci_high": hi}
            for s, n, v, lo, hi in report_rows(report.results)
        ]
