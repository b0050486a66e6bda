"""The sections of an item's adjudication chain in the construction export, in one
explicit list.

The construction variant of the final-set export (seed 000 App. D.3, issue #8) carries
every item's full chain: candidates, judgments, arbitration, screening, item review,
reference-label audit. Each workflow provides the read of its own part (a selector in its
package); the export, the top workflow layer, names them here and calls nothing else.

A section function takes the list of exported ``McqItem`` rows and returns
``{item.pk: jsonable}`` for the items it has something to say about. It must be
deterministic (sorted keys and lists) because exports are byte-identical on repeat.
"""

from collections.abc import Callable

from adjudication.arbitration.selectors import chain_arbitration
from adjudication.mcq.selectors import chain_item_review, chain_screening
from annotation.candidate_screening.selectors import chain_candidate_cleaning
from annotation.comparison.selectors import chain_candidates, chain_comparison
from audit.reference_labels.selectors import label_audit_chain_section

SectionFn = Callable[[list], dict]

# In the order of their names: the order of the manifest's and the construction file's
# ``chain_sections`` (changing it changes the export's bytes).
CHAIN_SECTIONS: tuple[tuple[str, SectionFn], ...] = (
    ("arbitration", chain_arbitration),
    ("candidate_cleaning", chain_candidate_cleaning),
    ("candidates", chain_candidates),
    ("comparison", chain_comparison),
    ("item_review", chain_item_review),
    ("label_audit", label_audit_chain_section),
    ("screening", chain_screening),
)


def chain_sections() -> list[tuple[str, SectionFn]]:
    return list(CHAIN_SECTIONS)
