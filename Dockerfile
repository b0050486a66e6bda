# One image for the web process and the Celery workers (docker-compose.yml).
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=heartbench_site.settings.production \
    STATIC_ROOT=/srv/heartbench/staticfiles

WORKDIR /srv/heartbench
# Cairo draws the plots' PNG downloads (CairoSVG); the DejaVu fonts are the plots' font.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libcairo2 fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
# The guides (served at /docs/) are built into .build/docs; collectstatic needs settings to
# import, and the values are placeholders for the build only.
RUN python -m mkdocs build --strict \
 && SECRET_KEY=build-only DATABASE_URL=sqlite:////tmp/build.sqlite3 \
    python manage.py collectstatic --noinput \
 && useradd --system --uid 10001 heartbench \
 && mkdir -p /srv/heartbench/media \
 && chown -R heartbench /srv/heartbench/media
USER heartbench
EXPOSE 8000
CMD ["gunicorn", "heartbench_site.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "120"]
