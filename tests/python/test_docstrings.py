# SPDX-License-Identifier: GPL-3.0-or-later
# Every public name of the module has a docstring (issue 22, item 9): module functions,
# classes, their methods and properties. pybind11 puts the signature first in a function's
# __doc__; a name is documented when text follows the signature (for an overloaded function:
# after every overload's signature).
import inspect
import re

import handsim

SIGNATURE = re.compile(r"^\s*(\d+\.\s*)?[A-Za-z_][A-Za-z0-9_]*\(.*\)( -> .*)?$")


def described(doc):
    if not doc or not doc.strip():
        return False
    if doc.lstrip().startswith("Overloaded function."):
        parts = re.split(r"\n\s*\d+\.\s", "\n" + doc.split("Overloaded function.", 1)[1])
        parts = [p for p in parts if p.strip()]
        return bool(parts) and all(described_one(p) for p in parts)
    return described_one(doc)


def described_one(doc):
    lines = [l for l in doc.strip().splitlines()]
    if lines and SIGNATURE.match(lines[0]):
        lines = lines[1:]
    return any(l.strip() for l in lines)


def public_names():
    out = []
    for name, value in vars(handsim).items():
        if name.startswith("_") or inspect.ismodule(value):
            continue
        out.append((name, value))
        if inspect.isclass(value):
            for attr, member in vars(value).items():
                if attr.startswith("_"):
                    continue
                if callable(member) or isinstance(member, property) or \
                        type(member).__name__ in ("instancemethod", "staticmethod",
                                                  "builtin_function_or_method"):
                    out.append((f"{name}.{attr}", member))
    return out


def doc_of(value):
    if isinstance(value, staticmethod):
        value = value.__func__
    return getattr(value, "__doc__", None)


def test_every_public_name_has_a_docstring():
    names = public_names()
    assert len(names) > 200  # the walk sees the whole module
    missing = [n for n, v in names if not described(doc_of(v))]
    assert not missing, f"{len(missing)} of {len(names)} public names lack a docstring: {missing}"


def test_the_check_can_fail():
    assert not described("fk(self: handsim.Hand, finger: int) -> numpy.ndarray\n")
    assert described("fk(self: handsim.Hand, finger: int) -> numpy.ndarray\n\nFrames.\n")
    assert not described(None)
