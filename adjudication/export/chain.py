"""Sections of an item's adjudication chain in the construction export.

The construction variant of the final-set export (seed 000 App. D.3, issue #8) carries
every item's full chain: candidates, judgments, arbitration, screening, item review,
reference-label audit. Each workflow contributes its own section by registering a
function here (usually in its AppConfig.ready), so the exporter needs no knowledge of
the apps that feed it.

A section function takes the list of exported ``McqItem`` rows and returns
``{item.pk: jsonable}`` for the items it has something to say about. It must be
deterministic (sorted keys and lists) because exports are byte-identical on repeat.
"""

from collections.abc import Callable

SectionFn = Callable[[list], dict]

_sections: dict[str, SectionFn] = {}


def register_chain_section(name: str, fn: SectionFn) -> None:
    _sections[name] = fn


def chain_sections() -> list[tuple[str, SectionFn]]:
    return sorted(_sections.items())
