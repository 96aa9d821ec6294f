# SPDX-License-Identifier: GPL-3.0-or-later
# docs/python.md (and the README's Python) runs as written (issue 22, item 1): every ```python
# block, each on its own in a fresh namespace, from a directory that is neither the source tree
# nor the build tree, with the hand's kinematics and dynamics watched so that every joint value
# a block passes lies within its joint limits (an IK target out of reach raises
# UnreachableTarget and fails the block unless the block catches it on purpose). Every example
# of docs/examples runs as a program from another directory too.
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import handsim

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


def python_blocks(path):
    text = path.read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)
    assert blocks, f"no python blocks in {path}"
    return blocks


BLOCKS = python_blocks(DOCS / "python.md")
README_BLOCKS = python_blocks(DOCS.parent / "README.md")


class LimitWatch:
    """Wraps the Hand methods that take one finger's joint values and records any value outside
    the finger's joint limits."""

    METHODS = ("fk", "jacobian", "fingertip", "dynamics", "inverse_dynamics", "newton_euler",
               "forward_dynamics")

    def __init__(self, monkeypatch):
        self.violations = []
        for name in self.METHODS:
            original = getattr(handsim.Hand, name)
            monkeypatch.setattr(handsim.Hand, name, self.wrap(name, original))
        original_ik = handsim.Hand.ik

        def ik(hand, finger, *args, **kwargs):
            result = original_ik(hand, finger, *args, **kwargs)
            self.check("ik", hand, finger, result[0] if isinstance(result, tuple) else result)
            return result

        monkeypatch.setattr(handsim.Hand, "ik", ik)

    def check(self, what, hand, finger, q):
        q = np.asarray(q, dtype=float)
        limits = hand.joint_limits(finger)
        rows = q.reshape(-1, hand.dof(finger))
        for row in rows:
            if np.any(row < limits[:, 0] - 1e-12) or np.any(row > limits[:, 1] + 1e-12):
                self.violations.append(f"{what}: finger {finger} q = {row.tolist()} outside "
                                       f"{limits.tolist()}")

    def wrap(self, name, original):
        def method(hand, finger, q, *args, **kwargs):
            self.check(name, hand, finger, q)
            return original(hand, finger, q, *args, **kwargs)

        method.__doc__ = original.__doc__
        return method


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_docs_python_block_runs_as_written(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # from any directory: no path may lean on the working directory
    watch = LimitWatch(monkeypatch)
    code = compile(BLOCKS[index], f"docs/python.md block {index + 1}", "exec")
    exec(code, {"__name__": f"docs_block_{index + 1}"})
    assert not watch.violations, watch.violations


@pytest.mark.parametrize("index", range(len(README_BLOCKS)))
def test_readme_python_block_runs_as_written(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    watch = LimitWatch(monkeypatch)
    exec(compile(README_BLOCKS[index], f"README.md block {index + 1}", "exec"), {})
    assert not watch.violations, watch.violations


def test_docs_blocks_stand_alone():
    # Each block imports what it uses: a reader may copy any one of them.
    for i, block in enumerate(BLOCKS):
        assert "import handsim" in block, f"block {i + 1} does not import handsim"


EXAMPLES = sorted((DOCS / "examples").glob("*.py"))
SMALL_ARGS = {"breakaway_plot": ["{tmp}/breakaway.png"], "friction_study": ["2"],
              "seed004_hold": ["default", "gripper2p:cube"], "scripted_grasp_env": ["2"]}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_as_a_program_from_another_directory(example, tmp_path):
    if example.stem == "breakaway_plot":
        pytest.importorskip("matplotlib")
    args = [a.format(tmp=tmp_path) for a in SMALL_ARGS.get(example.stem, [])]
    env = dict(os.environ)
    env["MPLBACKEND"] = "Agg"
    done = subprocess.run([sys.executable, str(example), *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() or any(tmp_path.iterdir())
