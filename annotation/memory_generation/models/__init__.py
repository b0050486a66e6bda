"""Memory generation's models, gathered into the ``annotation`` app (annotation/models.py)."""

from annotation.memory_generation.models.plans import *  # noqa: F401,F403
from annotation.memory_generation.models.runs import *  # noqa: F401,F403
