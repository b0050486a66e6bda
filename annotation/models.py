"""The annotation app's models, defined in its workflow packages and gathered here so
Django registers them under the ``annotation`` label. Nothing imports this module; code
imports a model from the workflow package that defines it."""

from annotation.blinding.models import *  # noqa: F401,F403
from annotation.candidate_screening.models import *  # noqa: F401,F403
from annotation.character_drafting.models import *  # noqa: F401,F403
from annotation.comparison.models import *  # noqa: F401,F403
from annotation.corpus.models import *  # noqa: F401,F403
from annotation.corpus_import.models import *  # noqa: F401,F403
from annotation.generation.models import *  # noqa: F401,F403
from annotation.memory_generation.models import *  # noqa: F401,F403
from annotation.profile_review.models import *  # noqa: F401,F403
from annotation.scenario_review.models import *  # noqa: F401,F403
