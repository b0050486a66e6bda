"""The audit app's models, defined in its workflow packages and gathered here so Django
registers them under the ``audit`` label. Nothing imports this module; code imports a
model from the workflow package that defines it."""

from audit.hygiene.models import *  # noqa: F401,F403
from audit.memory_quality.models import *  # noqa: F401,F403
from audit.observers.models import *  # noqa: F401,F403
from audit.reference_labels.models import *  # noqa: F401,F403
