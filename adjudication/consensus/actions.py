"""The comparison judgment, one door (issue #33): the pair page and
``/api/compare/{assignment}/judgment/`` validate with the same form and reach the service
through this function, so both refuse with the same words (``core.actions``)."""

from adjudication.consensus import services
from annotation.comparison.services import ComparisonError
from core.actions import ActionRefused, form_action

__all__ = ["ActionRefused", "judgment_submit"]


def judgment_submit(form, *, user, page):
    """The annotator's judgment of the pair ``page`` shows, from a bound
    ``ComparisonJudgmentForm``."""
    return form_action(
        form,
        lambda data: services.judgment_submit(
            public_id=page.public_id, annotator=user, content=data
        ),
        refusals=(ComparisonError,),
    )
