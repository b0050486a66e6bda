"""The tables of this app's migrations: the decision history's historical tables
(registered by ``core.history``) and two base models declared in ``core`` whose tables
were first created here."""

from core.deviations import ProtocolDeviation  # noqa: F401 (its table is this app's)
from core.drafts import FormDraft  # noqa: F401 (its table is this app's)
