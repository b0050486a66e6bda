"""Resolve a ParsedCorpus against the database and write it in one transaction.

Rules for records that already exist (the import is idempotent: the same files twice
change nothing, not even ``source``, whatever later stages did to the records since):

* profiles, memories and scenarios are compared with what was last imported as well as
  with the stored text (``reviewed``): a file holding either changes nothing. A change
  to one that profile review, the memory audit or scenario review has worked on is
  refused, naming the record and what protects it; with ``as_new_versions`` a changed
  profile is added as the next version for review instead (``reviewed``'s docstring).
* characters: matched by key; a key referenced anywhere and not stored is created
  without a profile.
* profiles: a difference creates the next version number. A version, frozen or not, is
  never rewritten.
* ``is_demo_standin`` counts only where a file states it: a file that does not say
  keeps the stored label (new rows get False), so re-importing an unlabelled file over
  labelled stand-ins changes nothing.
* scenarios, memories, imported references, activation sets: matched by natural key
  (scenario id; memory id; character and scenario; character, scenario, step and
  origin) and updated in place when a field differs (memories and scenarios only when
  no later stage protects them). Nothing is ever deleted: a record
  missing from a later file stays.
* references set by adjudication (decision type other than "imported") are never
  replaced by an import; the file's text is left out with a notice.
* imported candidates (the first release's three families' decisions,
  ``pairwise_analysis.decisions_by_model``): matched by character, scenario and family
  among candidates with no run, updated in place when the model name or decision
  differs. Generated candidates are never touched.
* MCQ items: matched by question id; a change of any field or option bumps ``version``
  and replaces the options. New and changed items get a McqItemVersion snapshot
  (origin import) of their version; unchanged items get none.
* activation lists naming a scenario that is neither stored nor imported (the
  release's step-1 file screens 15 draft scenarios dropped before publication) are
  left out with a notice; references and MCQs naming an unknown scenario are errors.
"""

from django.db import connection, transaction

from annotation.corpus_import.corpus import ParsedCorpus
from annotation.corpus_import.problems import ImportRejected
from annotation.corpus_import.resolve import resolve
from annotation.corpus_import.reviewed import ReviewedWork, refuse_changes_to_reviewed_work
from annotation.corpus_import.stored import StoredRows
from annotation.corpus_import.summary import ImportSummary
from annotation.corpus_import.writer import CorpusWriter

# Any constant works; it only has to be the same for every importer process.
_ADVISORY_LOCK = 0x4842_494D  # "HBIM"


def apply_corpus(
    corpus: ParsedCorpus, *, source: str, summary: ImportSummary, as_new_versions: bool = False
) -> None:
    with transaction.atomic():
        if connection.vendor == "postgresql":
            # Two imports at once would both see a key as new and collide on insert.
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_ADVISORY_LOCK])
        stored = StoredRows(corpus)
        resolve(corpus, stored)
        work = ReviewedWork.read(corpus, stored)
        refuse_changes_to_reviewed_work(corpus, stored, work, as_new_versions=as_new_versions)
        corpus.close()
        if corpus.problems:
            raise ImportRejected(corpus.problems)
        summary.notices.extend(corpus.notices)
        CorpusWriter(corpus, stored, work, source, summary).write()
