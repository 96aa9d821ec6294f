# SPDX-License-Identifier: GPL-3.0-or-later
"""handsim: a simulator for multi-fingered, under-actuated robotic hands (docs/python.md).

SI units and radians everywhere; numpy arrays in and out. Errors raise handsim.InputError
(a ValueError carrying file, line, column and field), handsim.UnreachableTarget (a ValueError
carrying the miss distance), ValueError for bad values and FileNotFoundError for missing files.
"""
import os as _os

# An installed package carries the shipped hands, objects and scenarios in handsim/assets
# (cmake --install); the core looks for them in $HANDSIM_ASSET_DIR, so point it there unless
# the user named another folder. The build tree's package has no assets folder: the core then
# uses the source tree's assets/.
_assets = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "assets")
if not _os.environ.get("HANDSIM_ASSET_DIR") and _os.path.isdir(_os.path.join(_assets, "hands")):
    _os.environ["HANDSIM_ASSET_DIR"] = _assets
del _assets

from ._handsim import *  # noqa: F401,F403,E402
from ._handsim import __version__  # noqa: F401,E402
