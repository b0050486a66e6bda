"""Age 12 is adolescence in criterion 2 of the memory audit, as in the life-stage bins,
the quotas, the batches, the strata and the generation prompt (issue #35)."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from audit.memory_quality import criteria
from audit.memory_quality.criteria import AuditConfig, MemoryText, check_memory
from audit.memory_quality.models import AuditSettings
from audit.memory_quality.services.configuration import audit_settings_defaults
from core import life_stages
from core.life_stages import BY_KEY

NARRATIVE = (
    "The rain drummed on the tall library windows and I counted the drops racing down the "
    'glass. "Are you still here?" the librarian asked. My stomach tightened. That evening I '
    "told my mother about the drops. Looking back, I now understand that she was exhausted."
)
CONTEXT = (
    "A rainy Tuesday afternoon in the school library while I waited for my mother to pick me up."
)
SUMMARY = (
    "I waited alone in the library after school, watched the rain, and worried that nobody "
    "would come to take me home before dark."
)


def adult_appraisal_flagged(age: int, config=None) -> bool:
    compiled = criteria.CompiledConfig.of(config or AuditConfig())
    memory = MemoryText("MEM_A", "CHAR_01", age, CONTEXT, SUMMARY, NARRATIVE, 0.7)
    return any(f.criterion == criteria.ADULT_EVALUATION for f in check_memory(memory, compiled))


def test_criterion_two_reads_age_twelve_as_adolescence_like_the_bins():
    """seed 000 App. B.6 criterion 2 flags adult appraisal in child-age memories. The
    child ages are the School age bin's (6-11, core/life_stages.py); B.6 and L.3 write
    "≤ 12", which the platform does not follow (docs/paper-vs-platform.md: "Life-stage
    boundaries")."""
    assert adult_appraisal_flagged(6)
    assert adult_appraisal_flagged(11)
    assert not adult_appraisal_flagged(12)
    assert life_stages.age_band(12) == "adolescence" and BY_KEY["adolescence"].contains(12)
    assert criteria.ADULT_EVALUATION_MAX_AGE == BY_KEY["school_age"].last_age == 11
    # A new settings version starts from the same rule.
    assert audit_settings_defaults()["adult_evaluation_max_age"] == 11


@pytest.mark.django_db(transaction=True)
def test_a_settings_version_stored_before_keeps_its_limit_of_twelve():
    """seed 000 App. B.6: the migration that moves the default to 11 only changes the
    default; a settings version stored with 12 keeps 12 (and its runs read as they did)."""
    executor = MigrationExecutor(connection)
    before, after = [("audit", "0008_audit_call_link")], executor.loader.graph.leaf_nodes()
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    defaults = audit_settings_defaults()
    defaults["adult_evaluation_max_age"] = 12
    fields = {f.name for f in old.get_model("audit", "AuditSettings")._meta.fields}
    old.get_model("audit", "AuditSettings").objects.create(
        number=1, **{k: v for k, v in defaults.items() if k in fields}
    )
    executor = MigrationExecutor(connection)
    executor.migrate(after)
    stored = AuditSettings.objects.get(number=1)
    assert stored.adult_evaluation_max_age == 12
    assert adult_appraisal_flagged(12, stored.as_config())
