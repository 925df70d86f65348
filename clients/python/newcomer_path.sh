#!/usr/bin/env bash
# A new bot developer's path (docs/bots.md, "Your own bot in ten minutes"), followed
# step by step and timed: a throw-away venv, `pip install ./clients/python`,
# `chickenfoot-bot register`, the two export lines it prints, then a one-round game
# against three server bots played to its end. Run from the repository root against
# a running server (with THROTTLE_REGISTER raised: docs/bots.md):
#
#     bash clients/python/newcomer_path.sh http://127.0.0.1:8000
set -euo pipefail
url=${1:-http://127.0.0.1:8000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s.%N)
last=$start
step() {
  local now
  now=$(date +%s.%N)
  awk -v a="$last" -v b="$now" -v s="$start" -v what="$1" \
    'BEGIN { printf "%7.1f s  (+%5.1f s)  %s\n", b - s, b - a, what }' >&2
  last=$now
}

# 1. Install the kit.
python3 -m venv "$work/botenv"
# shellcheck disable=SC1091
. "$work/botenv/bin/activate"
step "python3 -m venv botenv"
pip install -q ./clients/python
step "pip install ./clients/python"

# 2. An account and a token (the password from the environment instead of the prompt).
export CHICKENFOOT_PASSWORD=${CHICKENFOOT_PASSWORD:-"a long passphrase for my bot"}
eval "$(chickenfoot-bot register "newcomer$RANDOM$RANDOM" --url "$url")"
step "chickenfoot-bot register (and the export lines)"

# 3. Play.
chickenfoot-bot --new-vs-bots 3 --rounds 1 examples/kit_bot.py:choose 2>&1 | tail -2 >&2
step "chickenfoot-bot --new-vs-bots 3 --rounds 1 examples/kit_bot.py:choose (to the game's end)"
