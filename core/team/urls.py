from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

app_name = "team"
urlpatterns = [
    path("", views.team, name="team"),
    path("invite/", views.invite, name="invite"),
    path("invitations/<int:id>/resend/", views.invitation_resend, name="invitation-resend"),
    path("invitations/<int:id>/revoke/", views.invitation_revoke, name="invitation-revoke"),
    path("people/<int:id>/", views.person, name="person"),
    path("people/<int:id>/deactivate/", views.person_deactivate, name="person-deactivate"),
    path("people/<int:id>/reactivate/", views.person_reactivate, name="person-reactivate"),
    path("join/<str:token>/", views.join, name="join"),
]

# Password reset by email, with Django's own views and URL names (under /accounts/).
account_urlpatterns = [
    path("password-reset/", views.password_reset, name="password_reset"),
    path(
        "password-reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]
