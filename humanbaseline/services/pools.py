"""Recruitment pools (Prolific, SONA): the participant id an invitation link carries, and
the end of the study for the pool, a completion code and a completion URL.

The pool id is the person's id in the pool, kept for credit or payment; it is shown to
admins only (the study page, the time-on-task CSV).
"""

import re
from urllib.parse import quote, urlencode, urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from ..models import BaselineStudy, Participation

# A pool id as the pools make them (Prolific: 24 hex digits; SONA: a number), with room
# for other pools; anything else (an unfilled template such as {{%PROLIFIC_PID%}}, a
# script) is not stored.
POOL_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")
COMPLETION_CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")
PLACEHOLDERS = ("{code}", "{pool_id}", "{pool}")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
PROLIFIC_PARAMS = {
    "PROLIFIC_PID": "pool_id",
    "STUDY_ID": "pool_study_id",
    "SESSION_ID": "pool_session_id",
}


def sona_param() -> str:
    return settings.HEARTBENCH_SONA_ID_PARAM


def pool_link_queries() -> dict[str, str]:
    """What to add to the invitation link in each pool's study settings."""
    prolific = "&".join(f"{name}={{{{%{name}%}}}}" for name in PROLIFIC_PARAMS)
    return {"prolific": f"?{prolific}", "sona": f"?{sona_param()}=%SURVEY_CODE%"}


def pool_from_query(query) -> tuple[dict, list[str]]:
    """The pool fields an invitation link's query carries (``{}`` if none) and what was
    refused in it. Prolific's ``PROLIFIC_PID`` (with ``STUDY_ID``, ``SESSION_ID``), or
    the SONA id under the parameter ``HEARTBENCH_SONA_ID_PARAM`` names."""
    problems = []

    def value(name):
        raw = (query.get(name) or "").strip()
        if raw and not POOL_ID.fullmatch(raw):
            problems.append(
                f"The link's {name} is not a participant id (letters, digits, '.', '_' "
                "or '-', at most 64); ask the researcher for a correct link."
            )
            return ""
        return raw

    if query.get("PROLIFIC_PID") is not None:
        fields = {field: value(name) for name, field in PROLIFIC_PARAMS.items()}
        if fields["pool_id"]:
            return {"pool": Participation.Pool.PROLIFIC, **fields}, problems
        return {}, problems
    if query.get(sona_param()) is not None:
        pool_id = value(sona_param())
        if pool_id:
            return {"pool": Participation.Pool.SONA, "pool_id": pool_id}, problems
    return {}, problems


def pool_record(participation: Participation, pool: dict | None) -> None:
    """Store the link's pool id on a participation that has none (a later link never
    replaces the id the person enrolled with). Caller holds the transaction."""
    if not pool or not pool.get("pool_id") or participation.pool_id:
        return
    for field in ("pool", "pool_id", "pool_study_id", "pool_session_id"):
        setattr(participation, field, pool.get(field, ""))
    participation.save(update_fields=["pool", "pool_id", "pool_study_id", "pool_session_id"])


def completion_problems(*, code: str, url: str) -> dict[str, str]:
    """{field: message} of what is wrong with a study's completion code and URL."""
    problems = {}
    if code and not COMPLETION_CODE.fullmatch(code):
        problems["completion_code"] = (
            "Use letters, digits, '-' and '_' only (at most 64), as the pool shows the code."
        )
    if url:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc or " " in url:
            problems["completion_url"] = (
                "Enter an http:// or https:// address, e.g. "
                "https://app.prolific.com/submissions/complete?cc={code}."
            )
        else:
            unknown = sorted(set(_PLACEHOLDER.findall(url)) - set(PLACEHOLDERS))
            if unknown:
                problems["completion_url"] = (
                    f"Unknown placeholder {', '.join(unknown)}: use {', '.join(PLACEHOLDERS)}."
                )
            elif "{code}" in url and not code:
                problems["completion_url"] = (
                    "The address uses {code} but the study has no completion code: set one."
                )
    return problems


@transaction.atomic
def study_completion_set(*, study: BaselineStudy, code: str, url: str) -> BaselineStudy:
    """Set (or clear, with blanks) the code and URL a participant gets on finalizing."""
    code, url = (code or "").strip(), (url or "").strip()
    problems = completion_problems(code=code, url=url)
    if problems:
        raise ValidationError({field: [message] for field, message in problems.items()})
    study = BaselineStudy.objects.select_for_update().get(pk=study.pk)
    study.completion_code, study.completion_url = code, url
    study.save(update_fields=["completion_code", "completion_url"])
    return study


def completion_url(participation: Participation) -> str:
    """Where a finalized participant goes next: the study's completion URL with {code},
    {pool_id} and {pool} filled in (URL-quoted), or, without any placeholder,
    ``cc=<code>`` appended; "" when the study has none."""
    study = participation.study
    url = study.completion_url
    if not url:
        return ""
    if any(p in url for p in PLACEHOLDERS):
        for placeholder, value in (
            ("{code}", study.completion_code),
            ("{pool_id}", participation.pool_id),
            ("{pool}", participation.pool),
        ):
            url = url.replace(placeholder, quote(value or "", safe=""))
        return url
    if study.completion_code:
        separator = "&" if urlsplit(url).query else "?"
        if url.endswith(("?", "&")):
            separator = ""
        return f"{url}{separator}{urlencode({'cc': study.completion_code})}"
    return url
