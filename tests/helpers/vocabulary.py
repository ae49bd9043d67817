"""The glossary's public names (``doc/development/glossary.rst``) as a check.

Each concept has one public parameter name, the words its documentation
uses for it, and the other names it must not go by. :func:`vocabulary_errors`
reads every public estimator's and function's signature and numpydoc
parameters and reports

- a concept under another name (``n_bootstraps`` for ``n_resamples``);
- a concept's name used for something else: its description does not read
  as the concept (``block_size`` documented as rows per memory chunk).

``ALLOWED`` lists the differences that remain, each with its reason, as the
glossary's "Differences that remain" does.
"""

import importlib
import inspect
import re

from numpydoc.docscrape import ClassDoc, FunctionDoc

# name -> (what its description must say, names that must not stand for it)
CONCEPTS = {
    "n_resamples": (
        r"resampl|permutation|pairing|bootstrap|draws|simulated null",
        {"n_bootstraps", "n_bootstrap", "n_permutations", "n_boot", "num_resamples"},
    ),
    "block_size": (
        r"time order|in time|consecutive|B-test|block",
        {"block_length", "blocksize", "block_len", "time_block"},
    ),
    "chunk_size": (
        r"at a time|per chunk|memory|temporaries",
        {"chunk_rows", "rows_per_chunk", "batch_rows"},
    ),
    "batch": (
        r"per batch|per matrix product|resamples|draws|permutations|pairings",
        {"batch_size", "n_batch"},
    ),
    "random_state": (
        r"seed|random|draw|reproduc",
        {"seed", "rng", "random_seed"},
    ),
    "alpha": (r"level|alpha", {"significance_level", "level"}),
    "resample_unit": (r"unit|rows", {"unit_size", "unit_rows"}),
    "n_jobs": (r"thread|job|parallel", {"n_threads", "n_workers", "workers"}),
    "correction": (r"correct|adjust|fwer|fdr", {"adjustment", "p_adjust"}),
    "bandwidth": (r"bandwidth|length scale|median", {"length_scale", "lengthscale"}),
}

# (owner, name): why it stays (as in the glossary).
ALLOWED = {
    ("skmmd.statistics.mmd2_block", "block_size"): (
        "the B-test's own name (Zaremba et al.); its blocks are consecutive rows"
    ),
    ("skmmd.causal.SkmmdCIT", "level"): (
        "causal-learn's pc and fci take alpha themselves; the search's level "
        "only stops n_resamples='auto'"
    ),
}

MODULES = (
    "skmmd",
    "skmmd.statistics",
    "skmmd.kernels",
    "skmmd.kernel_approximation",
    "skmmd.kernel_learning",
    "skmmd.inspection",
    "skmmd.causal",
    "skmmd.tigramite",
    "skmmd.ruptures",
)


def public_callables(modules=MODULES):
    """``{qualified name: object}`` of every public class and function of
    ``modules`` (those whose optional library is missing are left out)."""
    found = {}
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                found.setdefault(f"{name}.{attr}", obj)
    return found


def _descriptions(obj):
    """``{parameter: its numpydoc description}``."""
    doc = ClassDoc(obj) if inspect.isclass(obj) else FunctionDoc(obj)
    out = {}
    for param in doc["Parameters"]:
        for name in param.name.split(","):
            out[name.strip().split(":")[0].strip()] = " ".join(param.desc)
    return out


def vocabulary_errors(callables):
    """Messages for every name in ``callables`` (``{owner: object}``) that
    breaks the glossary."""
    synonyms = {
        other: name for name, (_, others) in CONCEPTS.items() for other in others
    }
    errors = []
    for owner, obj in sorted(callables.items()):
        try:
            params = inspect.signature(obj).parameters
        except (TypeError, ValueError):
            continue
        descriptions = None
        for name in params:
            if (owner, name) in ALLOWED:
                continue
            if name in synonyms:
                errors.append(
                    f"{owner}({name}=): the glossary's name is {synonyms[name]}"
                )
            elif name in CONCEPTS:
                if descriptions is None:
                    descriptions = _descriptions(obj)
                text = descriptions.get(name, "")
                if text.startswith("As in :"):  # the named class's meaning
                    continue
                if not re.search(CONCEPTS[name][0], text, flags=re.IGNORECASE):
                    errors.append(
                        f"{owner}({name}=) is documented as {text[:80]!r}, not as "
                        f"the glossary's {name}"
                    )
    return errors
