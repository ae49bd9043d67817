"""Names kept for a release after they moved, in one place: a module's
public names given from their new module (:func:`moved_names`) and keywords
taken under their former names (:func:`renamed_keywords`), each with a
``FutureWarning`` that names the new place. Removed in skmmd 0.3."""

import importlib
import warnings

_REMOVED_IN = "skmmd 0.3"


def moved_names(old, new, names):
    """``(__getattr__, __dir__)`` for the module ``old`` whose public
    ``names`` now live in the module ``new``. ``new`` is imported by name
    when one of them is asked for, so ``old``'s package imports nothing of
    ``new``'s (the families never import each other)."""
    names = frozenset(names)

    def __getattr__(name):
        if name not in names:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warnings.warn(
            f"{old}.{name} is now {new}.{name}; the old name will be removed in "
            f"{_REMOVED_IN}.",
            FutureWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(new), name)

    def __dir__():
        return sorted(names)

    return __getattr__, __dir__


def renamed_keywords(function, given, former, renames):
    """The arguments ``given`` (``{name: value or None}``) of ``function``
    (its name, for the messages), with those passed under a former name in
    ``former`` (a ``**kwargs`` dict; ``renames``: ``{former: name}``) moved
    to their names, each with a ``FutureWarning``; a ``TypeError`` when one is
    given under both names. The former names are popped from ``former``."""
    given = dict(given)
    for old, name in renames.items():
        if old not in former:
            continue
        if given[name] is not None:
            raise TypeError(
                f"{function}() got both {name} and its former name {old}; give "
                f"{name} only."
            )
        warnings.warn(
            f"{function}({old}=...) is now {function}({name}=...); the old "
            f"keyword will be removed in {_REMOVED_IN}.",
            FutureWarning,
            stacklevel=3,
        )
        given[name] = former.pop(old)
    return given
