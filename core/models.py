"""The base's tables: the protocol deviations, the autosaved form drafts (declared
beside the code that writes them; first created by heartbench_site's migrations, whose
table names they keep), the stored statistics reports, and
the monthly spending caps per provider (``core.llm_runs``)."""

from core.deviations import ProtocolDeviation
from core.drafts import FormDraft
from core.llm_runs.models import MonthlySpendingCap
from core.reports.models import StoredReport

__all__ = ["FormDraft", "MonthlySpendingCap", "ProtocolDeviation", "StoredReport"]
