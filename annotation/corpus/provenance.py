"""Who may read how a profile version was drafted (issue #35).

A version drafted or redrafted on the platform records its drafting run in ``source``:
"drafted by drafting job 4 (anthropic claude-opus-4-6, prompt v2)". The model, its
provider and so its family are for admins only: annotators and reviewers judge the
profile, not the model behind it, and a family name on their pages is the kind of
provenance the blinding rules keep from them. Everyone else reads the source up to the
drafting job's number ("drafted by drafting job 4"), which only admins can open.
"""

import re

from core.roles import Role, has_any_role

# What follows the job's number in a drafting source: "(provider model, prompt vN)",
# possibly cut short by the column's length.
_DRAFTING_RUN = re.compile(r"( by drafting job \d+)\s*\(.*\Z", re.DOTALL)


def source_for(user, source: str) -> str:
    """``source`` as ``user`` may read it: whole for an admin, without the drafting
    model and provider for anyone else."""
    if not source or (user is not None and has_any_role(user, [Role.ADMIN])):
        return source
    return _DRAFTING_RUN.sub(r"\1", source)
