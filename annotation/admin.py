"""Registers each workflow package's Django admin pages (Django autodiscovers this module)."""

from annotation.blinding import admin as blinding_admin  # noqa: F401
from annotation.candidate_screening import admin as candidate_screening_admin  # noqa: F401
from annotation.character_drafting import admin as character_drafting_admin  # noqa: F401
from annotation.corpus import admin as corpus_admin  # noqa: F401
from annotation.corpus_import import admin as corpus_import_admin  # noqa: F401
from annotation.generation import admin as generation_admin  # noqa: F401
from annotation.memory_generation import admin as memory_generation_admin  # noqa: F401
from annotation.profile_review import admin as profile_review_admin  # noqa: F401
from annotation.scenario_review import admin as scenario_review_admin  # noqa: F401
