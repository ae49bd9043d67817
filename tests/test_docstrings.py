"""numpydoc validation of every public class, method and function.

Runnable examples are checked by ``--doctest-modules``; this checks structure.
"""

import importlib
import inspect

import pytest
from numpydoc.validate import validate

# Modules whose ``__all__`` is public API.
PUBLIC_MODULES = [
    "skmmd",
    "skmmd.kernels",
    "skmmd.statistics",
    "skmmd.datasets",
    "skmmd.inspection",
    "skmmd.two_sample",
    "skmmd.independence",
    "skmmd.conditional",
    "skmmd.change_points",
]

# Not enforced: extended summary (ES01), See Also presence/descriptions (SA01,
# SA04), and the return-name style RT02 (we name returned values, as
# scikit-learn does).
IGNORED = {"ES01", "SA01", "SA04", "RT02"}
# Classes and functions must have an Examples section (EX01 is enforced for
# them); methods are shown through their class's example.
IGNORED_METHODS = IGNORED | {"EX01"}


def _public_objects():
    seen = set()
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)) or obj in seen:
                continue
            seen.add(obj)
            qualname = f"{module_name}.{name}"
            yield qualname, IGNORED
            if inspect.isclass(obj):
                # Methods inherited from skmmd's own (private) bases too.
                methods = {}
                for klass in reversed(obj.__mro__):
                    if klass.__module__.startswith("skmmd"):
                        methods.update(vars(klass))
                for method, member in methods.items():
                    if not method.startswith("_") and inspect.isfunction(member):
                        yield f"{qualname}.{method}", IGNORED_METHODS


OBJECTS = list(_public_objects())


@pytest.mark.parametrize("name, ignored", OBJECTS, ids=[name for name, _ in OBJECTS])
def test_docstring(name, ignored):
    errors = [
        f"{code}: {message}"
        for code, message in validate(name)["errors"]
        if code not in ignored
    ]
    assert not errors, "\n".join(errors)
