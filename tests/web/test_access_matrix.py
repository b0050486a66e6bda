"""One declared access matrix over every URL the URLconf defines (issue #12).

On a fully populated database (the demo: every workflow at a stage where its pages have
real objects), every role, a signed-in user without a role and an anonymous visitor GET
every named URL with real object ids. The test asserts (a) the allow/deny of each
(role, view) pair against ``ACCESS`` below, declared by hand from DESIGN.md's role
table, and (b) that no response a role may receive contains a value that role must
never see. A URL added later without an entry here fails the test, so whoever adds a
page must decide who may open it.

The same walk, on the same objects, posts limit + 1 characters into every text field of
every API write and of every form a role is shown (issue #24), and checks each page for
repeated ids.

"Allowed" means the view answers the role (200, a redirect inside the workflow, 404 for
an object of the wrong kind or 405 for a POST-only action); "denied" means 403, and for
anonymous visitors a redirect to the login page (pages) or 403 (the API).
"""

import io
import re
import zipfile
from html.parser import HTMLParser

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from adjudication.mcq.models import McqItem
from annotation.comparison.models import PairAssignment
from annotation.corpus.models import Memory, ProfileVersion
from annotation.generation.models import Candidate, ModelFamily
from core.roles import CORPUS_READERS, Role
from heartbench_site.management.commands.demo_setup import DEMO_ACCOUNTS

from .statistics_access import STATISTICS_ACCESS
from .test_blinding import named_patterns

pytestmark = pytest.mark.django_db

R = Role
ANNOTATOR, ARBITRATOR, SCENARIO, MEMORY = (
    R.PRIMARY_ANNOTATOR,
    R.ARBITRATOR,
    R.SCENARIO_REVIEWER,
    R.MEMORY_REVIEWER,
)
EXPERT, AUDIT_ADJ, PARTICIPANT, ADMIN = (
    R.AUDIT_EXPERT,
    R.AUDIT_ADJUDICATOR,
    R.BASELINE_PARTICIPANT,
    R.ADMIN,
)
PUBLIC = "public"  # anyone, signed in or not
SIGNED_IN = frozenset(Role)  # every signed-in person, with or without a role
READERS = frozenset(CORPUS_READERS)


def only(*roles):
    return frozenset(roles)


# Who may open each named URL (Django admin pages are staff-only and checked apart).
ACCESS = {
    "home": SIGNED_IN,
    "login": PUBLIC,
    "logout": PUBLIC,  # POST-only; signing out needs no role
    "healthz": PUBLIC,
    "favicon": PUBLIC,
    "api-index": SIGNED_IN,
    "api-me": SIGNED_IN,
    "api-token": PUBLIC,  # POST with a password, DELETE with the token (a GET is 405)
    "account-token": READERS,
    "api-schema": READERS,
    "api-docs": READERS,
    # wt-docs (#36): the guides, built from docs/ by MkDocs; public like the repository
    # they come from (the help link of the login page opens them before signing in).
    "docs-index": PUBLIC,
    "docs": PUBLIC,
    # The corpus: every construction role; never a baseline participant (App. J).
    **dict.fromkeys(
        [
            "corpus:index",
            "corpus:character-list",
            "corpus:character-detail",
            "corpus:memory-detail",
            "corpus:scenario-list",
            "corpus:scenario-detail",
            "corpus-api:character-list",
            "corpus-api:character-detail",
            "corpus-api:memory-list",
            "corpus-api:memory-detail",
            "corpus-api:scenario-list",
            "corpus-api:scenario-detail",
        ],
        READERS,
    ),
    # Imports, character drafting, candidate generation, prompts: admins.
    **dict.fromkeys(
        [
            "corpus:import",
            "corpus:import-job",
            "corpus-api:import-list",
            "corpus-api:import-detail",
            "corpus:generation-list",
            "corpus:generation-new",
            "corpus:generation-detail",
            "corpus:generation-cancel",
            "corpus:generation-retry",
            "corpus:generation-unit",
            "corpus:prompt-list",
            "corpus:prompt-new",
            "memory_generation:prompt-list",
            "memory_generation:prompt-new",
            "generation-api:gates",
            "generation-api:run-list",
            "generation-api:run-detail",
            "generation-api:run-cancel",
            "generation-api:run-retry",
            "generation-api:unit-list",
            # LLM judge runs (issue 22): the judge's verdicts stay with admins.
            "judging:runs",
            "judging:launch",
            "judging:run",
            "judging:cancel",
            "judging:resume",
            "judging:report",
            "judging:report-csv",
            "judging:report-plot",
            # Observer reports (issue 37): ratings beside the design vector, admins only.
            "audit:observers:runs",
            "audit:observers:inventories",
            "audit:observers:launch",
            "audit:observers:run",
            "audit:observers:cancel",
            "audit:observers:resume",
            "audit:observers:report",
            "audit:observers:people",
            # Memory quota allocation (App. B.4).
            "memory_generation:index",
            "memory_generation:weights",
            "memory_generation:plan-new",
            "memory_generation:plan-detail",
            "memory_generation:plan-top-up",
            "memory-generation-api:weights-list",
            "memory-generation-api:plan-list",
            "memory-generation-api:plan-detail",
            "memory-generation-api:plan-top-up",
            "drafting:job-list",
            "drafting:job-new",
            "drafting:job-detail",
            "drafting:job-retry",
            "drafting:draft-detail",
            "drafting:redraft-list",
            "drafting:redraft-new",
            "drafting:prompt-list",
            "drafting:prompt-new",
            "drafting-api:job-list",
            "drafting-api:job-detail",
            # Distinctness between characters (issue 37): admins.
            "corpus:distinctness",
        ],
        only(ADMIN),
    ),
    # Memory generation runs (App. B.5): admins.
    **dict.fromkeys(
        [
            "memory_generation:run-list",
            "memory_generation:run-new",
            "memory_generation:run-detail",
            "memory_generation:run-progress",
            "memory_generation:run-cancel",
            "memory_generation:run-resume",
            "memory_generation:run-retry",
            "memory_generation:batch-detail",
            "memory_generation:storage-download",
            "memory-generation-api:run-list",
            "memory-generation-api:run-detail",
            "memory-generation-api:run-batches",
            "memory-generation-api:run-start",
            "memory-generation-api:run-cancel",
            "memory-generation-api:run-resume",
            "memory-generation-api:run-retry",
        ],
        only(ADMIN),
    ),
    # Profile review: annotators review; the senior adjudicates, edits and freezes.
    "review:profile-list": only(ANNOTATOR, ARBITRATOR, ADMIN),
    "review-api:profile-list": only(ANNOTATOR, ARBITRATOR, ADMIN),
    "review:profile-outcomes": only(ARBITRATOR, ADMIN),
    "review:profile-outcomes-csv": only(ARBITRATOR, ADMIN),
    "review-api:profile-outcomes": only(ARBITRATOR, ADMIN),
    "review:profile-review": only(ANNOTATOR),
    "review:profile-review-draft": only(ANNOTATOR),
    "review-api:profile-review": only(ANNOTATOR),
    "review:change-request-add": only(ANNOTATOR),
    "review-api:change-request-create": only(ANNOTATOR),
    "review:change-request-withdraw": only(ANNOTATOR),
    "review:change-request-resolve": only(ARBITRATOR),
    "review:profile-adjudicate": only(ARBITRATOR),
    "review:profile-edit": only(ARBITRATOR),
    "review:profile-edit-detail": only(ARBITRATOR),
    "review:profile-freeze": only(ARBITRATOR),
    "review-api:change-request-withdraw": only(ANNOTATOR),
    "review-api:change-request-resolve": only(ARBITRATOR),
    "review-api:profile-adjudicate": only(ARBITRATOR),
    "review-api:profile-edit": only(ARBITRATOR),
    "review-api:profile-edit-detail": only(ARBITRATOR),
    "review-api:profile-freeze": only(ARBITRATOR),
    # Scenario review: reviewers work; admins read lists, coverage and blueprints.
    **dict.fromkeys(
        [
            "review:scenario-list",
            "review:scenario-coverage",
            "review:coverage-diamonds-csv",
            "review:coverage-life-stages-csv",
            "review:coverage-agreement-csv",
            "review:coverage-plot",
            "review:blueprint-list",
            "review:blueprint-detail",
            "review:scenario-review",
            "review-api:scenario-list",
            "review-api:scenario-coverage",
            "review-api:blueprint-list",
            "review-api:blueprint-detail",
            "review-api:scenario-review",
        ],
        only(SCENARIO, ADMIN),
    ),
    **dict.fromkeys(
        [
            "review:scenario-new",
            "review:blueprint-queue",
            "review:scenario-screen",
            "review:scenario-revise",
            "review:scenario-rate",
            "review:scenario-rating-draft",
            "review:scenario-reassess",
            "review:scenario-reassess-confirm",
            "review-api:scenario-new",
            "review-api:blueprint-queue",
            "review-api:scenario-screen",
            "review-api:scenario-revise",
            "review-api:scenario-rate",
            "review-api:scenario-reassess",
            "review-api:scenario-reassess-confirm",
        ],
        only(SCENARIO),
    ),
    # Memory quality audit.
    "audit:queue": only(MEMORY, ARBITRATOR, ADMIN),
    "audit:case-detail": only(MEMORY, ARBITRATOR, ADMIN),
    "audit:outcomes": only(MEMORY, ARBITRATOR, ADMIN),
    "audit:outcomes-csv": only(MEMORY, ARBITRATOR, ADMIN),
    "audit-api:case-list": only(MEMORY, ARBITRATOR, ADMIN),
    "audit-api:case-detail": only(MEMORY, ARBITRATOR, ADMIN),
    "audit:case-decide": only(MEMORY),
    "audit-api:case-decide": only(MEMORY),
    "audit:case-edit": only(ARBITRATOR),
    "audit-api:case-edit": only(ARBITRATOR),
    "audit:case-edit-draft": only(ARBITRATOR),
    "audit:case-reaudit": only(ARBITRATOR),
    "audit:case-ask-team": only(ARBITRATOR),
    **dict.fromkeys(
        [
            "audit:run-list",
            "audit:run-detail",
            "audit:run-finalize",
            "audit:run-classify",
            "audit:settings",
            "audit-api:run-list",
            "audit-api:run-detail",
            "audit-api:run-finalize",
            "audit-api:run-classify",
            "audit-api:settings",
        ],
        only(ADMIN),
    ),
    # The memory audit run's cancel / resume / retry (issue #33), page and API.
    **dict.fromkeys(
        [
            f"audit{api}:run-{action}"
            for api in ("", "-api")
            for action in ("cancel", "resume", "retry")
        ],
        only(ADMIN),
    ),
    # Release hygiene (issue #37): memory reviewers decide on flags, admins run screens.
    "audit:hygiene-flags": only(MEMORY, ADMIN),
    "audit:hygiene-flag": only(MEMORY, ADMIN),
    "audit:hygiene-flag-decide": only(MEMORY),
    "audit:hygiene-runs": only(ADMIN),
    "audit:hygiene-run": only(ADMIN),
    "audit:hygiene-run-cancel": only(ADMIN),
    "audit:hygiene-run-retry": only(ADMIN),
    # Reference-label audit: experts select blind; the adjudicator compares with the key.
    "audit:labels:home": only(EXPERT, AUDIT_ADJ, ADMIN),
    "audit-api:labels-api:audit-list": only(EXPERT, AUDIT_ADJ, ADMIN),
    "audit:labels:create": only(ADMIN),
    "audit:labels:audit": only(AUDIT_ADJ, ADMIN),
    "audit:labels:outcomes": only(AUDIT_ADJ, ADMIN),
    "audit:labels:outcomes-csv": only(AUDIT_ADJ, ADMIN),
    "audit:labels:outcomes-plot": only(AUDIT_ADJ, ADMIN),
    "audit-api:labels-api:outcomes": only(AUDIT_ADJ, ADMIN),
    "audit:labels:adjudicate": only(AUDIT_ADJ, ADMIN),
    "audit:labels:expert-queue": only(EXPERT),
    "audit:labels:select": only(EXPERT),
    "audit:labels:draft": only(EXPERT),
    "audit-api:labels-api:expert-queue": only(EXPERT),
    "audit-api:labels-api:expert-item": only(EXPERT),
    "audit-api:labels-api:draft": only(EXPERT),
    "audit-api:labels-api:selection": only(EXPERT),
    "audit-api:labels-api:audit": only(AUDIT_ADJ, ADMIN),
    "audit-api:labels-api:audit-items": only(AUDIT_ADJ, ADMIN),
    "audit-api:labels-api:adjudication": only(AUDIT_ADJ, ADMIN),
    # Blinded comparison (annotators) and arbitration.
    "comparison:queue": only(ANNOTATOR),
    "comparison:pair": only(ANNOTATOR),
    "comparison:draft": only(ANNOTATOR),
    "comparison:memory": only(ANNOTATOR),
    "comparison-api:queue": only(ANNOTATOR),
    "comparison-api:pair": only(ANNOTATOR),
    "comparison-api:draft": only(ANNOTATOR),
    "comparison-api:judgment": only(ANNOTATOR),
    "comparison:assign": only(ADMIN),
    "adjudication:queue": only(ARBITRATOR, ADMIN),
    "adjudication:decided": only(ARBITRATOR, ADMIN),
    "adjudication:pair": only(ARBITRATOR, ADMIN),
    "adjudication:outcomes": only(ARBITRATOR, ADMIN),
    "adjudication:outcomes-csv": only(ARBITRATOR, ADMIN),
    "adjudication:outcomes-plot": only(ARBITRATOR, ADMIN),
    "adjudication:analytics": only(ARBITRATOR, ADMIN),
    "adjudication:analytics-csv": only(ARBITRATOR, ADMIN),
    "adjudication:analytics-plot": only(ARBITRATOR, ADMIN),
    "adjudication-api:outcomes": only(ARBITRATOR, ADMIN),
    "adjudication-api:pairs": only(ARBITRATOR, ADMIN),
    "adjudication-api:pair": only(ARBITRATOR, ADMIN),
    "adjudication-api:decide": only(ARBITRATOR),
    "adjudication-api:reopen": only(ADMIN),
    "adjudication:reopen": only(ADMIN),
    # Blinding integrity (issue 22): leak flags and the blinding report are the admin's; the
    # family question is the annotator's own, and answers 404 until their judgment is final.
    "screening:flags": only(ADMIN),
    "screening:flag": only(ADMIN),
    "screening:clean": only(ADMIN),
    "screening:accept": only(ADMIN),
    "comparison:screen": only(ADMIN),
    "blinding:guess": only(ANNOTATOR),
    "blinding:report": only(ADMIN),
    "blinding:report-csv": only(ADMIN),
    "blinding:report-plot": only(ADMIN),
    # MCQ item review (senior experts) and assembly (admins).
    "mcq:queue": only(ARBITRATOR, ADMIN),
    "mcq:queue-csv": only(ARBITRATOR, ADMIN),
    "mcq:item": only(ARBITRATOR, ADMIN),
    "mcq:revise-draft": only(ARBITRATOR, ADMIN),
    "mcq-api:queue": only(ARBITRATOR, ADMIN),
    "mcq-api:item": only(ARBITRATOR, ADMIN),
    "mcq-api:decide": only(ARBITRATOR, ADMIN),
    "mcq-api:revise-draft": only(ARBITRATOR, ADMIN),
    "mcq-api:screen": only(ADMIN),
    "mcq-api:runs": only(ADMIN),
    "mcq-api:run": only(ADMIN),
    "mcq:screen": only(ADMIN),
    "mcq:runs": only(ADMIN),
    "mcq:run": only(ADMIN),
    # Screening runs (the judge's calls and provenance): admins only.
    "mcq:screening-runs": only(ADMIN),
    "mcq:screening-run": only(ADMIN),
    "mcq:screening-run-cancel": only(ADMIN),
    "mcq:screening-run-resume": only(ADMIN),
    "mcq:screening-run-retry": only(ADMIN),
    # Judges checked against experts (issue 37): the screener's and the classifier's
    # verdicts beside the reviewers' decisions, admins only.
    "mcq:screener-agreement": only(ADMIN),
    "mcq:recall-audit": only(ADMIN),
    "audit:classifier-agreement": only(ADMIN),
    # The human baseline: participants take it; admins run it.
    "baseline:join": PUBLIC,
    "baseline:home": only(PARTICIPANT, ADMIN),
    **dict.fromkeys(
        [
            "baseline:study",
            "baseline:consent",
            "baseline:briefing",
            "baseline:practice",
            "baseline:start",
            "baseline:item",
            "baseline:item-time",
            "baseline:finalize",
        ],
        only(PARTICIPANT),
    ),
    **dict.fromkeys(
        [
            "baseline:admin",
            "baseline:families",
            "baseline:predictions",
            "baseline:selection-create",
            "baseline:selection-detail",
            "baseline:study-create",
            "baseline:study-detail",
            "baseline:participant-create",
            "baseline:study-status",
            "baseline:study-completion",
            "baseline:practice-reason",
            "baseline:best-model",
            "baseline:time-csv",
            "baseline:report",
            "baseline:report-csv",
            "baseline:report-plot",
            "baseline-api:sources",
            "baseline-api:families",
            "baseline-api:predictions",
            "baseline-api:selection-list",
            "baseline-api:selection-detail",
            "baseline-api:selection-items",
            "baseline-api:study-list",
            "baseline-api:study-detail",
            "baseline-api:study-status",
            "baseline-api:study-items",
            "baseline-api:participants",
            "baseline-api:time",
            "baseline-api:best-model",
            "baseline-api:report",
        ],
        only(ADMIN),
    ),
    # Evaluation runs and the export: admins.
    **dict.fromkeys(
        [
            "evaluation:run-list",
            "evaluation:run-detail",
            "evaluation:run-resume",
            "evaluation:run-cancel",
            "evaluation:run-retry",
            "evaluation:run-csv",
            "evaluation:prediction-detail",
            "evaluation:import",
            "evaluation:analysis",
            "evaluation:analysis-csv",
            "evaluation:analysis-plot",
            "evaluation-api:run-list",
            "evaluation-api:run-detail",
            "evaluation-api:run-resume",
            "evaluation-api:run-cancel",
            "evaluation-api:run-retry",
            "evaluation-api:prediction-list",
            "evaluation-api:prediction-detail",
            "evaluation-api:import",
            "export:home",
            "export:download",
            "export:start",
            "export:job-download",
            "export-api:jobs",
            "export-api:job",
            "export-api:job-download",
            "decision-history",
            "pipeline",
            "conflicts",  # issue #24
        ],
        only(ADMIN),
    ),
    # Issue #36, the team (core/team): the team page and its actions are the admin's; the
    # invitation link and password reset serve whoever holds the link (signed in or not).
    **dict.fromkeys(
        [
            "team:team",
            "team:invite",
            "team:invitation-resend",
            "team:invitation-revoke",
            "team:person",
            "team:person-deactivate",
            "team:person-reactivate",
        ],
        only(ADMIN),
    ),
    **dict.fromkeys(
        [
            "team:join",
            "password_reset",
            "password_reset_done",
            "password_reset_confirm",
            "password_reset_complete",
        ],
        PUBLIC,
    ),
    # Participants' rights (issue #36, wt-withdraw): a participant withdraws from their
    # own study; the admin erases a participant's data.
    "baseline:withdraw": only(PARTICIPANT),
    "baseline:participant-erase": only(ADMIN),
    # Costs (issue #36, wt-budget): resuming a run stopped at its budget; admins.
    **dict.fromkeys(["corpus:generation-resume"], only(ADMIN)),
    # Costs (issue #36, wt-memgen): cancelling or resuming a drafting job; admins.
    **dict.fromkeys(["drafting:job-cancel", "drafting:job-resume"], only(ADMIN)),
    # Human observers (issue 37): a person holding the observer role, their own tasks only.
    **dict.fromkeys(
        ["audit:observers:tasks", "audit:observers:task", "audit:observers:task-draft"],
        only(R.OBSERVER),
    ),
} | STATISTICS_ACCESS  # the statistics pages' tidy tables (issue #23)

# Field names that carry a key or its provenance; they must never reach a baseline
# participant or an audit expert, in any form (JSON key, label, data attribute).
KEY_FIELDS = (
    "is_correct",
    "correct_answer",
    "source_character",
    "source_family",
    "source_reference",
)


@pytest.fixture
def populated(demo_built, db):
    """The demo, built once for this module (tests/conftest.py)."""
    users = get_user_model().objects
    return {role: users.get(username=name) for name, role, _ in DEMO_ACCOUNTS}


def first(model, **filters):
    row = model.objects.filter(**filters).order_by("pk").first()
    assert row is not None, f"the demo has no {model.__name__} {filters}"
    return row


def url_values(user):
    """Real object ids for every URL parameter, the caller's own where it matters."""
    from adjudication.export.models import ExportJob
    from adjudication.judging.models import JudgeRun
    from annotation.corpus.models import Scenario
    from annotation.generation.models import GenerationRun, GenerationUnit
    from annotation.memory_generation.models import MemoryBatch, MemoryPlan, MemoryRun
    from audit.memory_quality.models import AuditRun, MemoryCase
    from audit.observers.models import ObserverRun, ObserverUnit
    from audit.reference_labels.models import LabelAudit, LabelAuditItem
    from evaluation.models import EvaluationPrediction, EvaluationRun
    from humanbaseline.models import BaselineStudy, Participation, SubsetSelection

    study = first(BaselineStudy)
    evaluation_run = first(EvaluationRun)
    own = PairAssignment.objects.filter(annotator=user).order_by("pk").first()
    common = {
        "key": first(ProfileVersion).character.key,
        "memory_id": first(Memory).memory_id,
        "scenario_id": first(Scenario).scenario_id,
        "stage": "response",
        "job_id": 1,
        "id": 1,
        "unit_id": first(GenerationUnit).pk,
        "case_id": first(MemoryCase).pk,
        "pair_id": first(PairAssignment).pair_id,
        "assignment": (own or first(PairAssignment)).public_id,
        "label_audit_id": first(LabelAudit).pk,
        "label_item_id": first(LabelAuditItem).pk,
        "study_id": study.pk,
        "position": 1,
        "token": study.invitation_token,
        "selection_id": first(SubsetSelection).pk,
        "item_id": first(McqItem, status=McqItem.Status.FLAGGED).pk,
        "prediction_id": first(EvaluationPrediction, run=evaluation_run).pk,
        "plan_id": MemoryPlan.objects.order_by("pk").values_list("pk", flat=True).first() or 1,
        # Observer runs (issue 37, admin only): the demo's run, else any id.
        "observer_run_id": ObserverRun.objects.order_by("pk").values_list("pk", flat=True).first()
        or 1,
        # A human observer's task (issue 37): the observer's own; any other id is a 404.
        "task_id": (
            ObserverUnit.objects.filter(observer_kind="human", observer=user.get_username())
            if user is not None
            else ObserverUnit.objects.none()
        )
        .order_by("pk")
        .values_list("pk", flat=True)
        .first()
        or 1,
        "flag_id": 1,  # admin only: any id does (a missing flag is a 404)
        "uidb64": "MQ",  # issue #36, password reset: a reset link of no use (refused)
        "participation_id": first(Participation, study=study).pk,  # issue #36
        "path": "participant/",  # wt-docs (#36): a guide page
    }
    # Until the demo writes a memory run (annotation/memory_generation/demo.py), any id
    # does: every role but the admin is refused before the lookup.
    memory_run = MemoryRun.objects.order_by("pk").first()
    memory_batch = MemoryBatch.objects.filter(run=memory_run).order_by("pk").first()
    memory_generation = {
        "run_id": memory_run.pk if memory_run else 1,
        "batch_id": memory_batch.pk if memory_batch else 1,
        "character_key": first(ProfileVersion).character.key,
    }
    by_namespace = {
        "corpus": {"run_id": first(GenerationRun).pk},
        "generation-api": {"run_id": first(GenerationRun).pk},
        "audit": {"run_id": first(AuditRun).pk},
        "audit-api": {"run_id": first(AuditRun).pk},
        "evaluation": {"run_id": evaluation_run.pk},
        "evaluation-api": {"run_id": evaluation_run.pk},
        "mcq": {"run_id": 1},
        "mcq-api": {"run_id": 1},
        **dict.fromkeys(("judging", "judging-api"), {"run_id": first(JudgeRun).pk}),
        "memory_generation": memory_generation,
        "memory-generation-api": memory_generation,
        "export": {"job_id": first(ExportJob).pk},
        "export-api": {"job_id": first(ExportJob).pk},
    }
    return common, by_namespace


#: A plot each plot URL's page shows on the demo (a PNG: the costlier download).
PLOTS = {
    "review:coverage-plot": "life-stages",
    "audit:labels:outcomes-plot": "outcomes",
    "adjudication:outcomes-plot": "positions",
    "adjudication:analytics-plot": "agreement",
    "judging:report-plot": "kappa",
    "baseline:report-plot": "accuracy",
    "evaluation:analysis-plot": "life-stages",
    "blinding:report-plot": "success",
}

#: The one annotator page that may name the families: the optional question after their
#: judgment is final (it answers 404 before; tests/web/test_blinding.py scans that).
AFTER_FINAL_PAGES = {"blinding:guess"}


def every_url(user):
    common, by_namespace = url_values(user)
    urls = {}
    for name, params in named_patterns():
        if name.startswith("admin:"):
            continue
        values = common | by_namespace.get(name.split(":")[0], {})
        values |= {"plot": PLOTS.get(name, "none"), "fmt": "png"}
        urls[name] = reverse(name, kwargs={p: values[p] for p in params})
    return urls


def is_denied(response, *, anonymous, path):
    if response.status_code == 403:
        return True
    if anonymous and response.status_code == 302:
        return response["Location"].startswith(reverse("login"))
    return anonymous and path.startswith("/api/") and response.status_code == 401


def forbidden_values():
    """What each role must never receive, from the populated database itself."""
    families = [label for _, label in ModelFamily.choices]
    models = sorted(
        {m for m in Candidate.objects.values_list("model_name", flat=True) if m}
        if hasattr(Candidate, "model_name")
        else set()
    )
    profile_texts = set()
    for version in ProfileVersion.objects.all():
        profile_texts.update([version.description, version.self_value_logic])
        profile_texts.update(version.core_patterns)
    annotations = set()
    for memory in Memory.objects.all()[:60]:
        annotations.update([memory.psych_conclusion, memory.behavior_policy])
    family_words = [re.compile(rf"\b{re.escape(f)}\b") for f in families]
    return {
        ANNOTATOR: {"patterns": family_words, "texts": set(models)},
        PARTICIPANT: {
            "patterns": family_words + [re.compile(rf"\b{f}\b") for f in KEY_FIELDS],
            "texts": {t for t in profile_texts | annotations if len(t) >= 20},
        },
        EXPERT: {"patterns": [re.compile(rf"\b{f}\b") for f in KEY_FIELDS], "texts": set()},
        # Issue 37: an observer rates from memories' narratives, blind to the design.
        R.OBSERVER: {
            "patterns": family_words
            + [
                re.compile(r"\bMEM_\w+"),
                re.compile(r"\bCHAR_\d+"),
                re.compile(r"\b[OCEAN]_(HIGH|LOW)\b"),
            ],
            "texts": {t for t in profile_texts | annotations if len(t) >= 20},
        },
    }


def found(body, secrets):
    hits = [p.pattern for p in secrets["patterns"] if p.search(body)]
    hits += [t[:40] for t in secrets["texts"] if t in body]
    return hits


ID_ATTRIBUTE = re.compile(r"""<[a-zA-Z][^>]*?\sid=["']([^"']+)["']""")


def duplicate_ids(body: str) -> list[str]:
    counts: dict[str, int] = {}
    for value in ID_ATTRIBUTE.findall(body):
        counts[value] = counts.get(value, 0) + 1
    return sorted(value for value, n in counts.items() if n > 1)


def test_every_url_is_declared():
    names = {name for name, _ in named_patterns() if not name.startswith("admin:")}
    assert names - set(ACCESS) == set(), "declare who may open these URLs"
    assert set(ACCESS) - names == set(), "these declared URLs no longer exist"


def test_each_role_reaches_exactly_its_declared_urls_and_nothing_it_must_not_see(populated):
    no_role = get_user_model().objects.create_user("no-role-yet", password="x")
    callers = [(role, user) for role, user in populated.items() if role in set(Role)]
    callers += [("no role", no_role), ("anonymous", None)]
    secrets = forbidden_values()
    wrong, leaked, duplicated = [], [], []
    for who, user in callers:
        client = Client()
        if user is not None:
            client.force_login(user)
        for name, path in every_url(user).items():
            response = client.get(path)
            assert response.status_code < 500, f"{who} GET {path}: {response.status_code}"
            allowed = ACCESS[name]
            if allowed == PUBLIC:
                expected = True
            elif user is None:
                expected = False
            elif who == "no role":
                expected = allowed == SIGNED_IN
            else:
                expected = who in allowed
            denied = is_denied(response, anonymous=user is None, path=path)
            if denied == expected:
                wrong.append(f"{who} GET {name} {path}: {response.status_code}")
            if not denied and response.get("Content-Type", "").startswith("text/html"):
                repeated = duplicate_ids(response.content.decode(errors="replace"))
                if repeated:
                    duplicated.append(f"{who} GET {path}: {repeated}")
            if not denied and who in secrets and name not in AFTER_FINAL_PAGES:
                body = response.content.decode(errors="replace")
                hits = found(body, secrets[who])
                if hits:
                    leaked.append(f"{who} GET {path}: {hits}")
    assert not wrong, "\n".join(wrong)
    assert not leaked, "\n".join(leaked)
    # An id names one element: labels, skip links, aria-describedby and scripts find the
    # first, so a repeated id points assistive technology at the wrong element.
    assert not duplicated, "\n".join(duplicated)


def test_the_leak_scan_sees_what_admins_may_see(populated):
    """The control: the same scan finds the families, the key fields and the profile
    texts on pages an admin may open, so the scan above can fail."""
    client = Client()
    client.force_login(populated[ADMIN])
    everything = {ANNOTATOR: [], PARTICIPANT: [], EXPERT: []}
    secrets = forbidden_values()
    urls = every_url(populated[ADMIN])
    bodies = [
        client.get(urls[name]).content.decode(errors="replace")
        for name in ["corpus:generation-detail", "corpus:character-detail"]
    ]
    # The construction export carries the keys and their provenance.
    download = client.get(urls["export:download"], follow=True)  # the demo's export job
    with zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content))) as bundle:
        bodies.append(bundle.read("heartbench-final-set/construction/items.json").decode())
    for body in bodies:
        for role in everything:
            everything[role] += found(body, secrets[role])
    assert everything[ANNOTATOR], "no model family on the admin's generation run page"
    assert everything[PARTICIPANT], "no profile text on the admin's character page"
    assert everything[EXPERT], "no key field in the construction export"


def test_an_annotator_cannot_open_another_annotators_pair_by_changing_the_id(populated):
    annotator = populated[ANNOTATOR]
    theirs = PairAssignment.objects.exclude(annotator=annotator).order_by("pk").first()
    assert theirs is not None
    client = Client()
    client.force_login(annotator)
    for name in ["comparison:pair", "comparison:draft", "comparison-api:pair"]:
        response = client.get(reverse(name, kwargs={"assignment": theirs.public_id}), follow=True)
        assert response.status_code in (403, 404), f"{name}: {response.status_code}"
    # A memory panel of their pair, by the same id (issue #34).
    cited = Candidate.objects.filter(pk__in=theirs.permutation).values_list(
        "activated_memory_ids", flat=True
    )
    memory_id = next(i for ids in cited for i in ids or [])
    panel = reverse(
        "comparison:memory", kwargs={"assignment": theirs.public_id, "memory_id": memory_id}
    )
    assert client.get(panel).status_code == 404


# --- Text limits over HTTP, every API write on the populated demo (issue #24) ------------


def api_write_text_fields(tmp_path):
    """{(method, path template): {field: maxLength}} from the OpenAPI schema."""
    import yaml
    from django.core.management import call_command

    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--file", str(out))
    schema = yaml.safe_load(out.read_text())
    components = schema["components"]["schemas"]

    def resolve(node):
        while "$ref" in node:
            node = components[node["$ref"].rsplit("/", 1)[-1]]
        return node

    writes = {}
    for template, operations in schema["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if method not in ("post", "put", "patch") or not body:
                continue
            properties = resolve(body["schema"]).get("properties") or {}
            resolved = {name: resolve(prop) for name, prop in properties.items()}
            fields = {
                name: prop["maxLength"]
                for name, prop in resolved.items()
                if "maxLength" in prop and not prop.get("readOnly")
            }
            if fields:
                writes[(method, template)] = fields
    return writes


def test_every_api_write_refuses_text_one_over_its_limit(populated, tmp_path):
    """Done when (issue #24): limit + 1 characters in every text field of every API write,
    over HTTP, as a role that may make it, on real objects. Each write is refused with a
    400 that names each field and its limit (a field of choices may instead refuse the
    value as no valid choice), and no row of any table changes."""
    from annotation.profile_review.models import ChangeRequest
    from tests.security.rowhash import changed, fingerprint

    writes = api_write_text_fields(tmp_path)
    templates = {re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", t) + "$"): t for _, t in writes}
    request = (
        ChangeRequest.objects.filter(status="open")
        .select_related("review__case__character")
        .first()
    )
    assert request is not None, "the demo has no open change request to resolve"
    real = {
        "review-api:change-request-resolve": reverse(
            "review-api:change-request-resolve",
            kwargs={"id": request.pk, "key": request.review.case.character.key},
        )
    }
    answers = {}
    before = fingerprint()
    for role, user in populated.items():
        client = APIClient()
        client.force_authenticate(user)
        for name, path in (every_url(user) | real).items():
            allowed = ACCESS[name]
            if not path.startswith("/api/") or allowed == PUBLIC or role not in allowed:
                continue
            template = next((t for rx, t in templates.items() if rx.match(path)), None)
            for method in ("post", "put", "patch"):
                fields = writes.get((method, template))
                if not fields or (method, template) in answers:
                    continue
                body = {field: "x" * (limit + 1) for field, limit in fields.items()}
                response = getattr(client, method)(path, body, format="json")
                if response.status_code != 403:  # a role that may read but not write
                    answers[(method, template)] = response
    after = fingerprint()

    assert set(writes) - set(answers) == set(), "no role could make these writes"
    unclear = []
    for (method, template), response in sorted(answers.items()):
        where = f"{method.upper()} {template}"
        if response.status_code != 400:
            unclear.append(f"{where}: {response.status_code} {response.content[:200]}")
            continue
        body = response.json()
        errors = body.get("fields", body)
        for field, limit in writes[(method, template)].items():
            said = " ".join(map(str, errors.get(field, [])))
            refusals = (f"{limit:,} characters", "valid choice", "is not offered")
            if not any(refusal in said for refusal in refusals):
                unclear.append(f"{where} {field}: {said[:120]!r}")
    assert unclear == []
    assert changed(before, after) == []
    assert len(answers) > 30


class PageForms(HTMLParser):
    """Each POST form of a page: its action, and its text inputs with their maxlength."""

    def __init__(self):
        super().__init__()
        self.forms, self._form = [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and (a.get("method") or "").lower() == "post":
            self._form = {"action": a.get("action") or "", "text": {}, "other": {}}
            self.forms.append(self._form)
        elif self._form is not None and tag in ("input", "textarea") and a.get("name"):
            kind = (a.get("type") or "text").lower() if tag == "input" else "textarea"
            locked = "readonly" in a or "disabled" in a  # a record shown, not a form to fill
            if kind in ("text", "textarea", "search", "url", "email") and not locked:
                self._form["text"][a["name"]] = int(a.get("maxlength") or 0)
            elif kind == "hidden":
                self._form["other"][a["name"]] = a.get("value") or ""

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None


def test_every_page_form_refuses_text_one_over_its_limit(populated):
    """The same for every form a role is shown on the demo's pages: limit + 1 characters
    in each text box, posted where the form posts; the page answers with the message beside
    the field (or a refusal), and nothing is stored."""
    from tests.security.rowhash import changed, fingerprint

    answers = {}
    clients = {}
    for role, user in populated.items():
        clients[role] = Client()
        clients[role].force_login(user)  # a write of its own (last_login): before the hash
    before = fingerprint()
    for role, user in populated.items():
        client = clients[role]
        for name, path in every_url(user).items():
            allowed = ACCESS[name]
            if path.startswith("/api/") or allowed == PUBLIC or role not in allowed:
                continue
            page = client.get(path)
            if page.status_code != 200 or not page["Content-Type"].startswith("text/html"):
                continue
            parser = PageForms()
            parser.feed(page.content.decode())
            for form in parser.forms:
                action = form["action"] or path
                key = (action, tuple(sorted(form["text"])))
                if not form["text"] or key in answers:
                    continue
                body = form["other"] | {f: "x" * (n + 1) for f, n in form["text"].items()}
                answers[key] = (role, client.post(action, body), form["text"])
    after = fingerprint()
    unclear = []
    for (action, _), (role, response, fields) in sorted(answers.items()):
        text = response.content.decode(errors="replace")
        for field, limit in fields.items():
            if not limit:
                unclear.append(f"{role} {action} {field}: no maxlength, the browser lets it grow")
            elif response.status_code not in (200, 400) or f"{limit:,} characters" not in text:
                unclear.append(f"{role} {action} {field}: {response.status_code}, no limit said")
    assert unclear == []
    assert changed(before, after) == []
    assert len(answers) > 25


def test_the_demo_observer_has_one_open_task_of_their_own(populated):
    """Issue 37: the demo's observer account rates one character of the demo observer
    run, so the walk above reaches (and scans) a real task page."""
    from audit.observers.models import ObserverUnit

    observer = populated[R.OBSERVER]
    tasks = ObserverUnit.objects.filter(observer_kind="human", observer=observer.username)
    assert tasks.count() == 1 and tasks.get().status == ObserverUnit.Status.PENDING
    client = Client()
    client.force_login(observer)
    page = client.get(reverse("audit:observers:task", kwargs={"task_id": tasks.get().pk}))
    assert page.status_code == 200 and "Person 1" in page.content.decode()
