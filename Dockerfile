# The image of prweekly's code location and of its run pods (deploy/, docs/deploy.md).
# A non-editable install: the image runs the package, never a checkout.
FROM python:3.11-slim

ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONUNBUFFERED=1

WORKDIR /build
COPY pyproject.toml README.md workspace.yaml ./
COPY orchestration ./orchestration
COPY sql ./sql
COPY reports ./reports
# [deploy]: Postgres storage and the object store; dagster-k8s: the run launcher of
# deploy/dagster.yaml, which starts each run in a pod of this same image.
RUN pip install ".[deploy]" dagster-k8s && rm -rf /build

# The warehouse and repositories.yml live on the volume mounted here; Dagster's instance
# configuration (deploy/dagster.yaml) is mounted as $PRWEEKLY_HOME/dagster/dagster.yaml, where
# prweekly looks for it.
ENV PRWEEKLY_HOME=/var/lib/prweekly DAGSTER_HOME=/var/lib/prweekly/dagster
RUN useradd --uid 10001 --create-home prweekly \
    && mkdir -p "$PRWEEKLY_HOME" "$DAGSTER_HOME" \
    && chown prweekly "$PRWEEKLY_HOME" "$DAGSTER_HOME"
USER prweekly
WORKDIR /home/prweekly

# The code location: the webserver and the daemon reach it over gRPC on port 4000. Run pods
# use the same image with Dagster's own `dagster api execute_run` command.
EXPOSE 4000
CMD ["dagster", "code-server", "start", "--module-name", "orchestration.service.definitions", "--host", "0.0.0.0", "--port", "4000"]
