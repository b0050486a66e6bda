"""The reference-label audit's part of `make demo` (seed 000 App. D.4).

``seed_label_audit_demo(users=...)`` creates the two extra audit experts the protocol
needs (``auditor2``, ``auditor3``; the demo's ``auditor`` is the third, ``adjudicator``
the fourth expert), draws the 176-item sample from the final set (2 per character ×
life-stage stratum, a fixed demo seed) and plays a few selections through the services,
so each account has something to do at once:

- item 1: all three experts chose the key → approved;
- item 2: the experts disagree → awaiting ``adjudicator``;
- items 3-5: ``auditor2`` and ``auditor3`` have submitted → awaiting ``auditor``;
- the rest: nobody has started.

Idempotent: a second call finds the demo audit and only resets the extra passwords.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from adjudication.mcq.models import OPTION_LABELS, McqItem
from audit.reference_labels import services
from audit.reference_labels.models import LabelAudit, LabelAuditItem
from core.roles import Role

DEMO_NOTE = "Demo reference-label audit of the release's final MCQs"
# Any fixed seed: the paper does not publish the audit's; this one is recorded like any other.
DEMO_SEED = 20261104
EXTRA_ACCOUNTS = (("auditor2", Role.AUDIT_EXPERT), ("auditor3", Role.AUDIT_EXPERT))


def _accounts() -> tuple[list, list[tuple[str, Role, str]]]:
    users, created = [], []
    for username, role in EXTRA_ACCOUNTS:
        password = f"{username}-demo-pass"
        user, _ = get_user_model().objects.get_or_create(username=username)
        user.set_password(password)
        user.save()
        user.groups.set([Group.objects.get(name=role.value)])
        users.append(user)
        created.append((username, role, password))
    return users, created


def _not(key: str, n: int = 0) -> str:
    return [x for x in OPTION_LABELS if x != key][n]


def seed_label_audit_demo(*, users: dict) -> list[tuple[str, Role, str]]:
    """Put the label audit at the selection stage; returns the extra accounts to print.

    ``users`` maps role values to the demo's one account per role."""
    extra, accounts = _accounts()
    if LabelAudit.objects.filter(note=DEMO_NOTE).exists():
        return accounts
    if not McqItem.objects.filter(status=McqItem.Status.FINAL).exists():
        return accounts
    auditor = users[Role.AUDIT_EXPERT.value]
    experts = [auditor, *extra]
    audit = services.label_audit_create(
        created_by=users[Role.ADMIN.value],
        experts=experts,
        adjudicator=users[Role.AUDIT_ADJUDICATOR.value],
        seed=DEMO_SEED,
        note=DEMO_NOTE,
    )
    rows = list(LabelAuditItem.objects.filter(audit=audit).select_related("item_version")[:5])
    plays = []
    if rows:
        key = rows[0].item_version.correct_answer
        plays.append((rows[0], {auditor: key, extra[0]: key, extra[1]: key}))
    if len(rows) > 1:
        key = rows[1].item_version.correct_answer
        plays.append((rows[1], {auditor: key, extra[0]: _not(key), extra[1]: key}))
    for row in rows[2:]:
        key = row.item_version.correct_answer
        plays.append((row, {extra[0]: key, extra[1]: _not(key, 1) if row is rows[2] else key}))
    notes = {
        extra[0]: "Demo note: the option's restraint matches the profile's low extraversion.",
        extra[1]: "Demo note: close call between two options.",
        auditor: "",
    }
    for row, selections in plays:
        for expert, choice in selections.items():
            services.label_selection_submit(
                audit_item_id=row.pk, expert=expert, choice=choice, note=notes[expert]
            )
    return accounts
