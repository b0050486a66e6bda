"""The adjudication app's models, defined in its workflow packages and gathered here so
Django registers them under the ``adjudication`` label. Nothing imports this module; code
imports a model from the workflow package that defines it."""

from adjudication.arbitration.models import *  # noqa: F401,F403
from adjudication.export.models import *  # noqa: F401,F403
from adjudication.judging.models import *  # noqa: F401,F403
from adjudication.mcq.models import *  # noqa: F401,F403
