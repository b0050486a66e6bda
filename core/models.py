"""The base's two tables: the protocol deviations and the autosaved form drafts (declared
beside the code that writes them; first created by heartbench_site's migrations, whose
table names they keep)."""

from core.deviations import ProtocolDeviation
from core.drafts import FormDraft

__all__ = ["FormDraft", "ProtocolDeviation"]
