# SPDX-License-Identifier: GPL-3.0-or-later
# The installed package is self-contained (issue 22, item 2): `cmake --install` into a fresh
# prefix, then the module imported by a clean interpreter (no PYTHONPATH but the installed
# site-packages, no HANDSIM_* variables, another working directory) with the source and build
# trees hidden under an empty tmpfs (a private mount namespace; where unshare is not allowed,
# the same checks run with the trees in place and every path checked to lie in the prefix).
# It lists and loads the shipped hands, runs a shipped scenario whose object mesh comes from
# the installed assets, and imports an OBJ through the installed mesh importer.
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("HANDSIM_SOURCE_DIR",
                                         pathlib.Path(__file__).resolve().parents[2]))

CHECK = textwrap.dedent("""
    import os, sys
    import handsim
    prefix = sys.argv[1]
    for hidden in sys.argv[2:]:
        assert not os.listdir(hidden), hidden + " is still visible"
    assert handsim.__file__.startswith(prefix), handsim.__file__
    assets = handsim.asset_directory()
    assert assets.startswith(prefix), assets
    hands = handsim.builtin_hands()
    assert "barrett" in hands and len(hands) >= 4, hands
    hand = handsim.load_hand("barrett")
    assert hand.source_file.startswith(prefix), hand.source_file
    scenario = handsim.load_scenario(assets + "/scenarios/barrett_breakaway_cube.json")
    assert scenario.objects[0].source.startswith(prefix), scenario.objects[0].source
    run = handsim.Run.from_scenario(scenario)
    run.step(50)
    assert run.steps == 50
    with open("tri.obj", "w") as f:
        f.write("v 0 0 0\\nv 1 0 0\\nv 0 1 0\\nv 0 0 1\\nf 1 3 2\\nf 1 2 4\\nf 1 4 3\\nf 2 3 4\\n")
    mesh = handsim.load_mesh("tri.obj")
    assert len(mesh.triangles) == 4, mesh
    urdf = handsim.load_hand(assets + "/hands/urdf/wrist_hand.urdf")
    assert urdf.fingers
    print("installed ok:", len(hands), "hands")
""")


def installed_site(prefix):
    found = sorted(prefix.glob("lib/python3*/*-packages/handsim/__init__.py"))
    found += sorted(prefix.glob("local/lib/python3*/*-packages/handsim/__init__.py"))
    assert found, f"no handsim package under {prefix}: {list(prefix.rglob('__init__.py'))}"
    return found[0].parent.parent


def can_hide(path):
    if shutil.which("unshare") is None:
        return False
    done = subprocess.run(["unshare", "--mount", "sh", "-c",
                           f"mount -t tmpfs none '{path}' && test ! -e '{path}/CMakeLists.txt'"],
                          capture_output=True)
    return done.returncode == 0


def test_installed_module_is_self_contained(tmp_path):
    build = os.environ.get("HANDSIM_BUILD_DIR")
    if not build:
        pytest.skip("HANDSIM_BUILD_DIR is not set (ctest sets it)")
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", build, "--prefix", str(prefix)], check=True,
                   capture_output=True)
    site = installed_site(prefix)
    package = site / "handsim"
    for part in ("assets/hands/barrett.json", "assets/scenarios/barrett_breakaway_cube.json",
                 "assets/objects/cube.wrl", "assets/hands/urdf/wrist_hand.urdf"):
        assert (package / part).is_file(), part
    assert os.access(package / "handsim-mesh-import", os.X_OK)

    work = tmp_path / "elsewhere"
    work.mkdir()
    (work / "check.py").write_text(CHECK)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(site), "HOME": str(work),
           "LANG": "C.UTF-8"}
    command = [sys.executable, "-s", "check.py", str(prefix)]
    hidden = []
    trees = sorted({SOURCE_DIR.resolve(), pathlib.Path(build).resolve()}, key=lambda p: len(p.parts))
    for tree in trees:
        if any(tree.is_relative_to(h) for h in hidden):
            continue  # hidden with its parent
        if not prefix.resolve().is_relative_to(tree) and can_hide(tree):
            hidden.append(tree)
    command += [str(h) for h in hidden]
    if hidden:
        mounts = " && ".join(f"mount -t tmpfs none '{t}'" for t in hidden)
        command = ["unshare", "--mount", "sh", "-c",
                   f"{mounts} && exec \"$@\"", "sh", *command]
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "installed ok" in done.stdout
    print("hidden during the check:", hidden or "nothing (unshare not allowed)")
