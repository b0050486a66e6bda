"""Who may open the statistics pages' tidy tables and their API rows (issue #23): the roles
of each statistics page, merged into ``ACCESS`` of test_access_matrix.py."""

from core.roles import Role

ARBITRATOR, SCENARIO, MEMORY = Role.ARBITRATOR, Role.SCENARIO_REVIEWER, Role.MEMORY_REVIEWER
AUDIT_ADJ, ADMIN = Role.AUDIT_ADJUDICATOR, Role.ADMIN

_BY_ROLES = {
    (ARBITRATOR, ADMIN): [
        "review:profile-outcomes-table",
        "review-api:profile-outcome-rows",
        "adjudication:outcomes-table",
        "adjudication:analytics-table",
        "adjudication-api:outcome-rows",
        "adjudication-api:analytics-rows",
    ],
    (SCENARIO, ADMIN): [
        f"review{api}:coverage-{slug}-{kind}"
        for slug in ("ratings", "life-stages", "agreement")
        for api, kind in (("", "table"), ("-api", "rows"))
    ],
    (MEMORY, ARBITRATOR, ADMIN): [
        "audit:outcomes-table",
        "audit:criteria-table",
        "audit-api:outcomes-rows",
        "audit-api:criteria-rows",
    ],
    (AUDIT_ADJ, ADMIN): [
        "audit:labels:outcomes-table",
        "audit:labels:items-table",
        "audit-api:labels-api:outcomes-rows",
        "audit-api:labels-api:items-rows",
    ],
    (ADMIN,): [
        "judging:report-table",
        "judging-api:report-rows",
        "blinding:report-table",
        "blinding-api:report-rows",
        "baseline:report-table",
        "baseline-statistics-api:report-rows",
        "evaluation:analysis-table",
        "evaluation-api:analysis-rows",
    ],
}
STATISTICS_ACCESS = {name: frozenset(roles) for roles, names in _BY_ROLES.items() for name in names}
