#!/usr/bin/env bash
# Build the Pantograph REPL for burnqed's `pantograph` backend (needs internet).
#
#   scripts/build_pantograph.sh              # the pinned release (v0.3.4, Lean v4.21.0)
#   scripts/build_pantograph.sh PROJECT_DIR  # the release built for that project's lean-toolchain
#   export PANTOGRAPH_REPL=<printed path>    # or set lean.repl_path in burnqed.toml
#
# With PROJECT_DIR, `burnqed lean pantograph-release PROJECT_DIR` picks the release whose
# lean-toolchain is the project's (burnqed/lean/place.py PANTOGRAPH_RELEASES, read from
# Pantograph's tags) and the script stops, saying so, when no release is built for it. A
# repl must run on its project's Lean: a Mathlib built for another Lean fails at import
# ("failed to read file ...olean, invalid header"). burnqed speaks v0.3.4's protocol; the
# older 0.3 releases are built on request for projects on their Lean.
#
# Steps: check out the commit pinned in vendor/ (git submodule, 757db11a, Pantograph v0.3.4);
# install elan (the Lean toolchain manager) if `lake` is missing, which fetches the toolchain
# named in Pantograph's lean-toolchain file (leanprover/lean4:v4.21.0); run `lake build repl`.
# The repl also needs `lean` on PATH at run time (it finds the library root with
# `lean --print-prefix`): elan's ~/.elan/bin provides it. For Mathlib imports, run burnqed
# inside a Lake project (`lake env` sets LEAN_PATH) or set lean.lean_path in burnqed.toml.
set -euo pipefail

PIN=757db11a77dfb9f2f62330c596a7e42565b3b143
URL=https://github.com/lenianiva/Pantograph.git
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="$ROOT/vendor/Pantograph"

if [ $# -ge 1 ]; then
    if command -v burnqed >/dev/null 2>&1; then
        BURNQED=(burnqed)
    elif [ -x "$ROOT/.venv/bin/python" ]; then
        BURNQED=("$ROOT/.venv/bin/python" -m burnqed.cli)
    else
        BURNQED=(env "PYTHONPATH=$ROOT" python3 -m burnqed.cli)
    fi
    # prints "TAG COMMIT LEAN", or says on stderr that no release is built for the project's Lean
    if ! RELEASE="$("${BURNQED[@]}" lean pantograph-release "$1")"; then
        echo "build_pantograph: nothing to build for $1" >&2
        exit 2
    fi
    read -r TAG PIN LEAN <<<"$RELEASE"
    DEST="$ROOT/vendor/Pantograph-$TAG"
    echo "build_pantograph: $1 is on Lean $LEAN: building Pantograph $TAG ($PIN) in $DEST"
fi

if [ "$DEST" = "$ROOT/vendor/Pantograph" ] && git -C "$ROOT" submodule status vendor/Pantograph >/dev/null 2>&1; then
    git -C "$ROOT" submodule update --init vendor/Pantograph
fi
if [ ! -d "$DEST/.git" ] && [ ! -f "$DEST/.git" ]; then
    git clone "$URL" "$DEST"
fi
git -C "$DEST" fetch --quiet origin "$PIN" 2>/dev/null || git -C "$DEST" fetch --quiet origin
git -C "$DEST" checkout --quiet "$PIN"

if ! command -v lake >/dev/null 2>&1; then
    if [ ! -x "$HOME/.elan/bin/lake" ]; then
        curl -sSfL https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh \
            | sh -s -- -y --default-toolchain none
    fi
    export PATH="$HOME/.elan/bin:$PATH"
fi

cd "$DEST"
lake build repl

REPL="$DEST/.lake/build/bin/repl"
if [ ! -x "$REPL" ]; then
    echo "build_pantograph: lake finished but $REPL is missing" >&2
    exit 1
fi
echo "Pantograph repl built. Use it with:"
echo "  export PANTOGRAPH_REPL=$REPL"
echo "  export PATH=\$HOME/.elan/bin:\$PATH   # the repl runs \`lean --print-prefix\`"
echo "$REPL"
