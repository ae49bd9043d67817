"""``skmmd.show_versions()``: what to paste into a bug report."""

import platform
import sys

_DEPENDENCIES = ("skmmd", "numpy", "scipy", "scikit-learn", "joblib", "numba", "pytest")


def _versions():
    # Imported here, so that `import skmmd` does not load importlib.metadata.
    from importlib.metadata import PackageNotFoundError, version

    info = {}
    for name in _DEPENDENCIES:
        try:
            info[name] = version(name)
        except PackageNotFoundError:
            info[name] = None
    return info


def show_versions():
    """Print system information and the versions of skmmd's dependencies.

    Examples
    --------
    >>> from skmmd import show_versions
    >>> show_versions()  # doctest: +ELLIPSIS
    <BLANKLINE>
    System:
        python: ...
    """
    print("\nSystem:")
    print(f"    python: {sys.version.splitlines()[0]}")
    print(f"executable: {sys.executable}")
    print(f"   machine: {platform.platform()}")
    print("\nPython dependencies:")
    for name, ver in _versions().items():
        print(f"{name:>13}: {ver}")
    try:
        import numba

        print(f"\nnumba threads: {numba.get_num_threads()} ({numba.threading_layer()})")
    except ValueError:  # the threading layer is chosen at the first parallel call
        pass
