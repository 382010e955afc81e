# The Slack bot: answers from the knowledge base and hands verifications to the GPU
# workers through Redis (REDIS_URL), so this image needs neither a GPU nor CUDA.
#
# Build arguments, for sites that cannot reach the public indexes (a mirror, a proxy):
#   TORCH_VERSION     torch to install (default the pin in pyproject.toml)
#   TORCH_INDEX_URL   where torch's wheels come from (default PyTorch's CPU index)
#   PYPI_INDEX_URL    where every other package comes from (default PyPI)
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

ARG PYPI_INDEX_URL=https://pypi.org/simple
# torch first, from a CPU wheel index: the pin in pyproject.toml alone would pull the
# multi-GB CUDA build from PyPI, which the bot never uses.
ARG TORCH_VERSION=2.13.0
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
RUN pip install "torch==${TORCH_VERSION}" --index-url "${TORCH_INDEX_URL}"

WORKDIR /app
# The dependencies before the code: this layer is rebuilt only when pyproject.toml changes.
COPY pyproject.toml docker/deps.py ./
RUN python deps.py postgres > /tmp/requirements.txt \
 && pip install --index-url "${PYPI_INDEX_URL}" -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt deps.py

COPY README.md ./
COPY bot ./bot
COPY knowledge ./knowledge
# Editable, so the code's own folder (/app) stays the project root: knowledge/ beside it.
# --no-deps: they are all installed above (and torch from its own index).
RUN pip install --no-deps -e .

COPY docker/bot-entrypoint.sh /usr/local/bin/bot-entrypoint.sh
RUN chmod 0755 /usr/local/bin/bot-entrypoint.sh \
 && useradd --create-home --uid 10001 troubleshoot \
 && mkdir -p /data/index /data/var && chown -R troubleshoot /data

# The index and the SQLite fallback live in volumes (see docker-compose.yml).
ENV TROUBLESHOOT_INDEX_DIR=/data/index TROUBLESHOOT_VAR_DIR=/data/var
USER troubleshoot
EXPOSE 3000
ENTRYPOINT ["bot-entrypoint.sh"]
CMD ["troubleshoot", "serve", "--http", "--port", "3000"]
