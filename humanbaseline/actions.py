"""The baseline administration's actions, one door each (issue #33): the admin pages and
``/api/baseline/`` validate with the same forms, check the same column bounds and reach
the services through these functions, so both refuse with the same words
(``core.actions``)."""

from core.actions import ActionRefused, form_action, validated

from . import services
from .models import COUNT_MAX, SEED_MAX, BaselineError
from .subset import ConstraintError

__all__ = [
    "ActionRefused",
    "best_model_fix",
    "families_import_csv",
    "participant_create",
    "predictions_import_csv",
    "report_request",
    "selection_create",
    "study_create",
]

# What the database stores (BigIntegerField, PositiveIntegerField) and a random generator
# accepts as a seed (numpy: not negative).
SEED_RANGE = (0, SEED_MAX)
COUNT_RANGE = (0, COUNT_MAX)
REFUSALS = (BaselineError,)


def fits_columns(form, bounds: dict[str, tuple[int, int]]) -> dict:
    """The form's cleaned data, once its whole numbers fit the columns that store them
    (and a seed the generator); one outside is an error on its field (the form sets no
    such bound) and refuses the action."""
    data = validated(form)
    for name, (low, high) in bounds.items():
        value = data.get(name)
        if value is not None and value < low:
            form.add_error(name, f"Ensure this value is greater than or equal to {low}.")
        elif value is not None and value > high:
            form.add_error(name, f"Ensure this value is less than or equal to {high}.")
    return validated(form)


def selection_create(form, *, user):
    """A subset selection from a bound ``SelectionForm``."""
    fits_columns(form, {"seed": SEED_RANGE})
    return form_action(
        form,
        lambda data: services.subset_select(
            user=user,
            seed=data["seed"],
            constraints=form.constraints(),
            held_out_scenarios=form.held_out(),
        ),
        refusals=(ConstraintError, *REFUSALS),
    )


def study_create(form, *, user):
    """A study from a bound ``StudyForm``."""
    return form_action(
        form,
        lambda data: services.study_create(
            user=user,
            name=data["name"],
            selection=data["selection"],
            consent_version=data["consent_version"],
            consent_text=data["consent_text"],
            briefing=data["briefing"],
            pay_text=data["pay_text"],
            practice_question_ids=form.practice_ids(),
            practice_count=data["practice_count"] or 0,
            retrieval_method=data["retrieval_method"],
            k=data["k"],
        ),
        refusals=REFUSALS,
    )


def participant_create(form, *, study):
    """A participant account from a bound ``ParticipantAccountForm``."""
    return form_action(
        form,
        lambda data: services.participant_account_create(
            study=study, username=data["username"], password=data["password"]
        ),
        refusals=REFUSALS,
    )


def best_model_fix(form, *, user, study):
    """The study's best model from a bound ``BestModelForm``."""
    return form_action(
        form,
        lambda data: services.best_model_fix(
            study=study,
            user=user,
            run_ids=[run.pk for run in data["runs"]],
            model_label=data["model_label"],
            reason=data["reason"],
        ),
        refusals=REFUSALS,
    )


REPORT_BOUNDS = {"seed": SEED_RANGE, "n_boot": COUNT_RANGE, "n_permutations": COUNT_RANGE}


def report_request(form, *, user, study):
    """A report computation from a bound ``ReportForm``."""
    fits_columns(form, REPORT_BOUNDS)
    return form_action(
        form,
        lambda data: services.report_request(study=study, user=user, **data),
        refusals=REFUSALS,
    )


def families_import_csv(form) -> tuple[int, str]:
    """Item families from a bound ``FamilyCsvForm``'s file: (count, file name)."""

    def store(data):
        upload = data["file"]
        count = services.item_families_import_csv(
            content=upload.read(), origin=f"csv:{upload.name}"
        )
        return count, upload.name

    return form_action(form, store, refusals=REFUSALS)


def predictions_import_csv(form) -> tuple[int, str]:
    """Model predictions from a bound ``PredictionCsvForm``'s file: (count, file name)."""

    def store(data):
        upload = data["file"]
        count = services.predictions_import_csv(content=upload.read(), origin=f"csv:{upload.name}")
        return count, upload.name

    return form_action(form, store, refusals=REFUSALS)
