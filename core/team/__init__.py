"""The lab's team (issue #36): who holds which role, invitations by email, deactivation,
and the mail the platform sends.

models (``Invitation``, ``MailAttempt``), services (every change: invite, resend, revoke,
accept, change roles, deactivate, send a mail), selectors (the team page's rows: roles,
open and finished work per queue, construction involvement), queues (the work queues a
person can hold, counted from the workflows' own records), celery_tasks (mail is sent on
a worker), forms, views and urls (``/team/``, the invitation link, password reset's
mail), demo (a pending invitation for the demo).
"""
