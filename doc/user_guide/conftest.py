import os

# scikit-learn's array API dispatch (array_api.rst) needs scipy's, which scipy
# reads from the environment when it is first imported.
os.environ.setdefault("SCIPY_ARRAY_API", "1")
