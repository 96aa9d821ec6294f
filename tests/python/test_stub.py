# SPDX-License-Identifier: GPL-3.0-or-later
# The type stub describes the module as built: every public function and class of
# handsim._handsim appears in _handsim.pyi with its public members, and the stub names nothing
# the module lacks.
import ast
import pathlib

import handsim
from handsim import _handsim

STUB = pathlib.Path(_handsim.__file__).with_name("_handsim.pyi")


def stub_names():
    tree = ast.parse(STUB.read_text())
    top, members = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        if isinstance(node, ast.ClassDef):
            names = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    names.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(item.target.id)
            members[node.name] = names
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            top.add(node.target.id)
    return top, members


def public(names):
    return {n for n in names if not n.startswith("_")}


def test_the_stub_matches_the_module():
    top, members = stub_names()
    module = public(dir(_handsim))
    assert module - top == set(), "in the module, missing from the stub"
    assert public(top) - module - {"ArrayLike", "Array"} == set(), "in the stub only"
    for name, stub_members in members.items():
        cls = getattr(_handsim, name)
        if not isinstance(cls, type) or issubclass(cls, BaseException):
            continue
        built = public(dir(cls))
        assert built - stub_members == set(), f"{name}: missing from the stub"
        assert public(stub_members) - built == set(), f"{name}: in the stub only"


def test_every_public_callable_has_a_docstring():
    for name in public(dir(_handsim)):
        obj = getattr(_handsim, name)
        if callable(obj):
            assert obj.__doc__, name


def test_the_package_reexports_the_module():
    assert handsim.load_hand is _handsim.load_hand
    assert handsim.InputError is _handsim.InputError
