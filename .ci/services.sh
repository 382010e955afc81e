#!/usr/bin/env bash
# Start Redis and PostgreSQL if they are installed but not running; install Redis
# from Debian's packages where it is missing and we are allowed to; Chromium and CJK fonts likewise.
set -u
ok=0
if ! (command -v redis-cli >/dev/null && redis-cli -h 127.0.0.1 ping >/dev/null 2>&1); then
  if ! command -v redis-server >/dev/null && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server) >/dev/null 2>&1 || true
  fi
  if command -v redis-server >/dev/null; then
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
      --dir /tmp --logfile /tmp/redis-ci.log >/dev/null 2>&1 || ok=1
    sleep 0.5
  else
    ok=1
  fi
fi
if command -v pg_isready >/dev/null && ! pg_isready -h 127.0.0.1 -q 2>/dev/null; then
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start >/dev/null 2>&1 || ok=1
  else
    ok=1
  fi
fi
# strace and libseccomp's Python binding: tests/jobs/test_jobs_deploy.py checks the
# worker's seccomp profile with them (skipped, saying so, without them). Never fails CI.
if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ] && \
   { ! command -v strace >/dev/null || ! /usr/bin/python3 -c "import seccomp" 2>/dev/null; }; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends strace python3-seccomp) >/dev/null 2>&1 || true
fi
# Headless Chromium and CJK fonts for the knowledge pages' browser tests
# (tests/pages/test_pages_browser.py skips with the reason where there is no browser).
# The package lists are refreshed first: on an image whose lists are old, installing
# without `apt-get update` fails and the tests skip. Never fails CI itself.
browser_packages=""
if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
  browser_packages="chromium"
fi
if ! (command -v fc-list >/dev/null && fc-list :lang=ko 2>/dev/null | grep -qi "noto.*cjk"); then
  browser_packages="$browser_packages fonts-noto-cjk"
fi
if [ -n "$browser_packages" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  # shellcheck disable=SC2086  # the list is meant to split into package names
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends $browser_packages) >/dev/null 2>&1 || true
fi
exit $ok
