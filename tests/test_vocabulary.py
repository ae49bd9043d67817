"""One vocabulary (issue 82): every public estimator and function names each
glossary concept by its one name, and uses that name for nothing else
(``tests/helpers/vocabulary.py`` holds the glossary's names)."""

import inspect

from tests.helpers.vocabulary import ALLOWED, public_callables, vocabulary_errors


def test_public_names_follow_the_glossary():
    callables = public_callables()
    assert len(callables) > 50  # the check reads the whole public API
    assert vocabulary_errors(callables) == []


def test_every_allowed_difference_is_still_there():
    # A difference that is gone must leave the list (the list is the
    # glossary's remaining differences, not a blanket exemption).
    callables = public_callables()
    for owner, name in ALLOWED:
        if owner not in callables:
            assert owner.startswith(("skmmd.causal", "skmmd.tigramite")), owner
            continue  # its optional library is not installed
        assert name in inspect.signature(callables[owner]).parameters, (owner, name)


def _injected(n_bootstraps=100, block_size=None):
    """A function breaking the glossary twice.

    Parameters
    ----------
    n_bootstraps : int
        Resamples of the null.
    block_size : int
        Rows per chunk, a memory size.
    """


def test_the_check_catches_an_injected_synonym_and_a_second_meaning():
    errors = vocabulary_errors({"injected": _injected})
    assert len(errors) == 2
    assert "n_bootstraps" in errors[0] and "n_resamples" in errors[0]
    assert "block_size" in errors[1] and "Rows per chunk" in errors[1]
