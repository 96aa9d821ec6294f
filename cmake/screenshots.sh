#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates the screenshots in docs/images with the real application under Xvfb (Mesa
# llvmpipe), and the plot picture with handsim-cli. Run after building:
# bash cmake/screenshots.sh [BUILD_DIR]
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
# A published-style figure: seed 000's Fig. 7-8 preset, single column, exported by the CLI.
"$build/src/handsim-cli" simulate "$root/assets/scenarios/barrett_breakaway_cube.json" --quiet \
    --plot "$root/docs/images/plot-seed000.png" --preset seed000 --dpi 200 > /dev/null
# Seed 004's grippers (docs/hands.md), the viewport only, at zero joint angles.
for id in gripper2p gripper2r gripper3r; do
  run --hand "$id" --quit-after 3 --screenshot "$root/docs/images/hand-$id.png"
done
# One picture per panel (the dock alone), on the breakaway run after 3 s so that the panels
# show a moving hand, contacts and a grasp.
for panel in joints cartesian objects grasp trajectory; do
  run --scene "$root/assets/scenarios/barrett_breakaway_cube.json" --play --quit-after 3 \
      --panel "$panel" --panel-screenshot "$root/docs/images/handsim-panel-$panel.png"
done
# An imported object placed in front of the palm (the shipped bottle and the anthropomorphic hand).
run --hand anthro20 --object "$root/assets/objects/bottle.wrl" --quit-after 2 \
    --screenshot "$root/docs/images/handsim-import.png"
echo "wrote docs/images/handsim-default.png, handsim-breakaway.png, plot-seed000.png, hand-gripper*.png, handsim-panel-*.png and handsim-import.png"
