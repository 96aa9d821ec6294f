# SPDX-License-Identifier: GPL-3.0-or-later
# The tests import the module from the build tree (ctest sets PYTHONPATH) and find the CLI and
# the sources through the environment ctest sets.
import os
import pathlib

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("HANDSIM_SOURCE_DIR",
                                         pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("HANDSIM_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("HANDSIM_CLI is not set (ctest sets it)")
    return path


@pytest.fixture(scope="session")
def scenarios():
    return SOURCE_DIR / "assets" / "scenarios"
