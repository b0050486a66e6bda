"""The claim's plain read of a unit gives what the ORM's select_related gives: the same
values in every field of the unit and of the rows its stages read, all loaded."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.generation.models import GenerationRun, GenerationUnit
from annotation.generation.services.runs import generation_run_create
from annotation.generation.services.unit_read import CLAIM_RELATED, unit_with_related
from tests.factories import UserFactory

from .helpers import frozen_character, scenario


def _fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


def _assert_same(read, expected):
    assert type(read) is type(expected)
    assert _fields(read) == _fields(expected)
    assert read._state.adding is False and read._state.db == expected._state.db


@pytest.mark.django_db
def test_the_plain_read_equals_the_orm_read_and_needs_no_further_query(providers):
    frozen_character(ages=[6, 7])
    scenario(age=10)
    run = generation_run_create(user=UserFactory(), families=["claude"])
    GenerationUnit.objects.filter(run=run).update(
        eligible_memory_ids=["MEM_CHAR_01_N_HIGH_0001"], tokens_in=12, cost_usd="0.000123"
    )
    unit_id = run.units.get().pk
    expected = GenerationUnit.objects.select_related(*CLAIM_RELATED).get(pk=unit_id)

    with CaptureQueriesContext(connection) as ctx:
        unit = unit_with_related(unit_id)
        related = (
            unit.run,
            unit.character,
            unit.scenario,
            unit.profile_version,
            unit.profile_version.character,
        )
    assert len(ctx.captured_queries) == 1  # everything came with the one statement

    _assert_same(unit, expected)
    assert unit.eligible_memory_ids == ["MEM_CHAR_01_N_HIGH_0001"]  # JSON decoded
    assert isinstance(unit.run.families, list) and unit.run.families == expected.run.families
    for got, want in zip(
        related,
        (
            expected.run,
            expected.character,
            expected.scenario,
            expected.profile_version,
            expected.profile_version.character,
        ),
        strict=True,
    ):
        _assert_same(got, want)
    assert unit.profile_version.core_patterns == expected.profile_version.core_patterns


@pytest.mark.django_db
def test_a_unit_without_a_profile_version_reads_none_and_a_missing_unit_raises(providers):
    frozen_character(ages=[6])
    scenario(age=10)
    run = generation_run_create(user=UserFactory(), families=["claude"])
    GenerationUnit.objects.filter(run=run).update(profile_version=None)
    unit_id = run.units.get().pk

    unit = unit_with_related(unit_id)
    assert unit.profile_version is None and unit.profile_version_id is None
    assert isinstance(unit.run, GenerationRun) and unit.run.pk == run.pk
    with pytest.raises(GenerationUnit.DoesNotExist):
        unit_with_related(unit_id + 1000)
