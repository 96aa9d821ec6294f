# SPDX-License-Identifier: GPL-3.0-or-later
"""handsim: a simulator for multi-fingered, under-actuated robotic hands (docs/python.md).

SI units and radians everywhere; numpy arrays in and out. Errors raise handsim.InputError
(a ValueError carrying file, line, column and field), handsim.UnreachableTarget (a ValueError
carrying the miss distance), ValueError for bad values and FileNotFoundError for missing files.
"""
from ._handsim import *  # noqa: F401,F403
from ._handsim import __version__  # noqa: F401
