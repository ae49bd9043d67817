"""The labels of a table's columns, the first part of the input contract of
tables (see :ref:`input_contract`): every entry that takes a DataFrame (the
tests' samples, ``TabularSampler``, the online detector through its
transformer, the CLI's files) checks them here, so the same table gets the
same answer everywhere. Labels are unique and flat (no MultiIndex), all
strings or none (scikit-learn stores string names as ``feature_names_in_``;
other labels, e.g. integers in any order, are kept as they are and columns
are used by position)."""


def is_dataframe(X):
    """Whether ``X`` is a pandas-like DataFrame."""
    return hasattr(X, "columns") and hasattr(X, "iloc")


def column_labels(X):
    """The column labels of DataFrame ``X``, a list made in one call: a
    pandas 3 text ``Index`` (held by pyarrow) iterated in Python yields
    its labels one at a time, about a microsecond each, and a wide table's
    checks list them many times."""
    return X.columns.tolist()


def dtypes_by_label(X):
    """``{label: dtype}`` of DataFrame ``X``'s columns (:func:`column_labels`)."""
    return dict(zip(column_labels(X), X.dtypes.tolist()))


def check_columns(X, name="X"):
    """Raise a ValueError or TypeError naming ``name`` when the column labels
    of the DataFrame ``X`` are not unique, flat labels of one kind."""
    columns = X.columns
    if getattr(columns, "nlevels", 1) > 1:
        raise ValueError(
            f"{name} has MultiIndex columns ({columns.nlevels} levels); flatten "
            f"them first, e.g. {name}.columns = ['_'.join(map(str, c)) for c in "
            f"{name}.columns]."
        )
    names = columns.tolist()
    if len(set(names)) != len(names):
        seen, repeated = set(), []
        for label in names:
            if label in seen and label not in repeated:
                repeated.append(label)
            seen.add(label)
        raise ValueError(
            f"{name} has duplicate column labels {repeated[:10]}; each column "
            "needs its own label."
        )
    kinds = {isinstance(label, str) for label in names}
    if len(kinds) > 1:
        odd = [label for label in names if not isinstance(label, str)]
        raise TypeError(
            f"{name} mixes string and non-string column labels (e.g. {odd[:5]}); "
            f"use one kind, e.g. {name}.columns = {name}.columns.astype(str)."
        )
