"""A lab deployment (docker-compose): every secret from the environment, HTTPS only."""

from .base import *  # noqa: F403
from .base import env

DEBUG = False
# TLS ends at the lab's reverse proxy, which must set X-Forwarded-Proto (and strip it
# from clients). SECURE_SSL_REDIRECT=false when the proxy redirects HTTP itself.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
# The container health check calls /healthz over plain HTTP inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# The compose health check reaches the container on its loopback address.
ALLOWED_HOSTS = [*ALLOWED_HOSTS, "127.0.0.1"]  # noqa: F405
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SESSION_COOKIE_NAME = "__Host-sessionid"
CSRF_COOKIE_NAME = "__Host-csrftoken"

# Static files: collectstatic writes each file under a name carrying a hash of its content
# (app.3f2a….css), and WhiteNoise serves those names from gunicorn with a ten-year cache
# header; a new release has new names, so no browser keeps an old file.
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# --- Mail -------------------------------------------------------------------------------
# The lab's SMTP server (invitations, password resets) is read from the environment by
# base.py (EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER/PASSWORD, EMAIL_USE_TLS for STARTTLS on
# 587 or EMAIL_USE_SSL for TLS from the first byte on 465, DEFAULT_FROM_EMAIL).
