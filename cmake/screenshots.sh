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
for panel in joints cartesian objects grasp; do
  run --scene "$root/assets/scenarios/barrett_breakaway_cube.json" --play --quit-after 3 \
      --panel "$panel" --panel-screenshot "$root/docs/images/handsim-panel-$panel.png"
done
# The trajectory panel on the lift scenario: finger segments and the palm's move.
run --scene "$root/assets/scenarios/barrett_lift_cube.json" --play --quit-after 3 \
    --panel trajectory --panel-screenshot "$root/docs/images/handsim-panel-trajectory.png"
# A hand of many joints: the Joints panel scrolls, the trajectory rows are in degrees.
run --scene "$root/assets/scenarios/anthro20_grasp_sphere.json" --play --quit-after 4 \
    --window-screenshot "$root/docs/images/handsim-anthro20.png"
# An imported object placed in front of the palm (the shipped bottle and the anthropomorphic hand).
run --hand anthro20 --object "$root/assets/objects/bottle.wrl" --quit-after 2 \
    --screenshot "$root/docs/images/handsim-import.png"
# A URDF hand drawn as it looks and as it collides (View > Show Collision Meshes): the public
# Allegro hand when the corpus is there, our wrist test hand otherwise.
urdf="$root/assets/hands/urdf/wrist_hand.urdf"
if [ -n "${HANDSIM_CORPUS_DIR:-}" ] && [ -f "$HANDSIM_CORPUS_DIR/urdf/allegro_hand/allegro_hand_right.urdf" ]; then
  urdf="$HANDSIM_CORPUS_DIR/urdf/allegro_hand/allegro_hand_right.urdf"
fi
run --hand "$urdf" --quit-after 3 --screenshot "$root/docs/images/handsim-urdf-visual.png"
run --hand "$urdf" --show-collision --quit-after 3 \
    --screenshot "$root/docs/images/handsim-urdf-collision.png"
echo "wrote docs/images/handsim-default.png, handsim-breakaway.png, plot-seed000.png, hand-gripper*.png, handsim-panel-*.png, handsim-anthro20.png, handsim-import.png and handsim-urdf-*.png"
