# The Slack bot: answers from the knowledge base and hands verifications to the GPU
# workers through Redis (REDIS_URL), so this image needs neither a GPU nor CUDA.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

# torch first, from PyTorch's CPU wheel index: the pin in pyproject.toml alone would
# pull the multi-GB CUDA build from PyPI, which the bot never uses.
ARG TORCH_VERSION=2.13.0
RUN pip install "torch==${TORCH_VERSION}" --index-url https://download.pytorch.org/whl/cpu

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY knowledge ./knowledge
# Editable, so the code's own folder (/app) stays the project root: knowledge/ beside it.
RUN pip install -e '.[postgres]'

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
