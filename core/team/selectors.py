"""What the team page reads: people with their roles, work and construction involvement,
open invitations and failed mail. A fixed number of queries whatever the team's size."""

from dataclasses import dataclass, field
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.paginator import Page, Paginator
from django.db.models import Prefetch
from django.utils import timezone

from core.conflicts import Involvement, construction_involvement
from core.roles import Role, ordered_roles

from .models import Invitation, MailAttempt
from .queues import WORK_QUEUES, QueueCount, queue_counts

PEOPLE_PER_PAGE = 25


@dataclass
class PersonRow:
    person: object
    roles: list[Role]
    work: list[QueueCount]
    involvement: list[Involvement] = field(default_factory=list)

    @property
    def involvement_count(self) -> int:
        """Records of construction work, as the label audit's conflict rule counts them."""
        return sum(i.count for i in self.involvement)

    @property
    def open_total(self) -> int:
        return sum(w.open or 0 for w in self.work)

    @property
    def done_total(self) -> int:
        return sum(w.done for w in self.work)


def _roles_of(person) -> list[Role]:
    names = {g.name for g in person.groups.all()}
    roles = {r for r in Role if r.value in names}
    if person.is_superuser:
        roles.add(Role.ADMIN)
    return ordered_roles(roles)


def people_rows(people) -> list[PersonRow]:
    """One row per person (prefetched groups): a query per work queue and per construction
    source, for all of them at once."""
    ids = [p.pk for p in people]
    work = queue_counts(ids)
    involvement = construction_involvement(ids)
    return [
        PersonRow(p, _roles_of(p), work.get(p.pk, []), involvement.get(p.pk, [])) for p in people
    ]


def team_people(*, page: int | str | None, participants: bool = False) -> tuple[Page, list]:
    """The page of people, active first, by name. Study participants (whose only role is
    the baseline) are left out unless ``participants``."""
    people = (
        get_user_model()
        .objects.prefetch_related(Prefetch("groups"))
        .order_by("-is_active", "username")
    )
    if not participants:
        people = people.exclude(pk__in=_only_participants())
    paged = Paginator(people, PEOPLE_PER_PAGE).get_page(page)
    return paged, people_rows(list(paged.object_list))


def _only_participants():
    """Ids of accounts holding the baseline role and no other role (and not superusers)."""
    users = get_user_model().objects
    others = [r.value for r in Role if r is not Role.BASELINE_PARTICIPANT]
    return (
        users.filter(groups__name=Role.BASELINE_PARTICIPANT.value, is_superuser=False)
        .exclude(groups__name__in=others)
        .values("pk")
    )


def participant_count() -> int:
    return _only_participants().count()


def open_invitations():
    """Invitations not accepted or revoked (expired ones included: they can be resent),
    each with its latest mail attempt as ``last_mail``."""
    rows = list(
        Invitation.objects.filter(accepted_at__isnull=True, revoked_at__isnull=True)
        .select_related("invited_by")
        .prefetch_related(Prefetch("mails", queryset=MailAttempt.objects.order_by("-pk")))
        .order_by("-sent_at")
    )
    for invitation in rows:
        mails = list(invitation.mails.all())
        invitation.last_mail = mails[0] if mails else None
        invitation.role_labels = [Role(r).label for r in invitation.roles]
    return rows


def failed_mail(*, days: int = 14):
    """Mail that failed in the last ``days`` and was not followed by a successful one to
    the same address of the same kind."""
    since = timezone.now() - timedelta(days=days)
    recent = list(
        MailAttempt.objects.filter(created_at__gte=since)
        .select_related("invitation")
        .order_by("-created_at", "-pk")
    )
    latest: dict[tuple[str, str], MailAttempt] = {}
    for attempt in recent:
        latest.setdefault((attempt.to, attempt.kind), attempt)
    return [a for a in latest.values() if a.status == MailAttempt.Status.FAILED]


def person_open_work(person) -> list[tuple[str, str, list]]:
    """(queue label, where it is handed on, the open records) for each queue where the
    person has open work: what to reassign when they leave."""
    found = []
    for queue in WORK_QUEUES:
        records = queue.open_records(person.pk)
        if records:
            found.append((queue.label, queue.open_url_name, records))
    return found
