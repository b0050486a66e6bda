"""Characters with profile versions for the distinctness page and launch tests."""

import re

from django.utils import timezone

from annotation.corpus.distinctness_report import KIND
from tests.factories import CharacterFactory, ProfileVersionFactory
from tests.stored_reports import computed

from .table4 import TABLE4

FIELDS = ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")


def profile(key: str, vector, *, number: int = 1, frozen: bool = True):
    version = ProfileVersionFactory(
        character=CharacterFactory(key=key),
        number=number,
        **dict(zip(FIELDS, vector, strict=True)),
    )
    if frozen:
        version.frozen_at = timezone.now()
        version.save()
    return version


def table4_profiles() -> dict:
    """The eleven Table 4 characters, each with a frozen version 1."""
    return {key: profile(key, vector) for key, vector in TABLE4.items()}


ROW = re.compile(r'<tr data-pair="(CHAR_\d+) (CHAR_\d+)"(.*?)</tr>', re.S)
CELL = r'data-testid="{}">([^<]*)<'


def table_rows(body: str) -> list[dict]:
    """The distinctness table's rows as the page shows them."""
    rows = []
    for first, second, inner in ROW.findall(body):
        rows.append(
            {
                "pair": (first, second),
                "l1": float(re.search(CELL.format("pair-l1"), inner).group(1)),
                "kendall": float(re.search(CELL.format("pair-kendall"), inner).group(1)),
                "discordant": re.search(CELL.format("pair-discordant"), inner).group(1),
                "flagged": 'data-testid="near-duplicate"' in inner,
            }
        )
    return rows


def computed_table() -> None:
    """The stored distinctness table computed now from the current profiles, as the
    worker would (the page only reads what is stored)."""
    computed(KIND)
