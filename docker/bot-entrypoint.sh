#!/bin/sh
# Before serving, build or refresh the search index in its volume: the first start
# embeds the whole knowledge base, later starts only what changed.
set -e
if [ "$1" = "troubleshoot" ] && [ "$2" = "serve" ]; then
  troubleshoot index build
fi
exec "$@"
