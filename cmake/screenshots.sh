#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates the screenshots in docs/images with the real application under Xvfb (Mesa
# llvmpipe). Run after building: bash cmake/screenshots.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
app="$build/src/app/handsim"
run() { xvfb-run -a -s "-screen 0 1600x1000x24" "$app" "$@"; }
# A private settings directory so a saved window layout does not change the pictures.
export XDG_CONFIG_HOME="$(mktemp -d)"
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
run --quit-after 2 --window-screenshot "$root/docs/images/handsim-default.png"
run --scene "$root/assets/scenarios/barrett_breakaway_cube.json" --play --quit-after 6 \
    --window-screenshot "$root/docs/images/handsim-breakaway.png"
# One picture per panel (the dock alone), on the breakaway run after 3 s so that the panels
# show a moving hand, contacts and a grasp.
for panel in joints cartesian objects grasp trajectory; do
  run --scene "$root/assets/scenarios/barrett_breakaway_cube.json" --play --quit-after 3 \
      --panel "$panel" --panel-screenshot "$root/docs/images/handsim-panel-$panel.png"
done
# An imported object placed in front of the palm (the shipped bottle and the anthropomorphic hand).
run --hand anthro20 --object "$root/assets/objects/bottle.wrl" --quit-after 2 \
    --screenshot "$root/docs/images/handsim-import.png"
echo "wrote docs/images/handsim-default.png, handsim-breakaway.png, handsim-panel-*.png and handsim-import.png"
