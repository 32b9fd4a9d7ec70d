#!/usr/bin/env bash
# Build the pinned Pantograph REPL for burnqed's `pantograph` backend (needs internet).
#
#   scripts/build_pantograph.sh            # clones/updates vendor/Pantograph, builds `repl`
#   export PANTOGRAPH_REPL=<printed path>  # or set lean.repl_path in burnqed.toml
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

if git -C "$ROOT" submodule status vendor/Pantograph >/dev/null 2>&1; then
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
