"""The base's tables: the protocol deviations, the autosaved form drafts (declared
beside the code that writes them; first created by heartbench_site's migrations, whose
table names they keep), and the stored statistics reports."""

from core.deviations import ProtocolDeviation
from core.drafts import FormDraft
from core.reports.models import StoredReport

__all__ = ["FormDraft", "ProtocolDeviation", "StoredReport"]
